import CBOR
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// Requests a device must refuse with the reference's answer, and keep serving afterwards.
@Suite("Bad requests", .virtualTime)
struct BadRequestTests {
    let echo = bytes("0a 00 00 09 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f")

    func rc(_ response: [UInt8]?) throws -> Int? {
        guard let response else { return nil }
        return try payloadValue(response)["rc"]?.intValue
    }

    @Test("malformed CBOR and a missing field are EINVAL (3); the device keeps serving")
    func malformed() async throws {
        try await withClosing(await RawLink.make(), close: { await $0.close() }) { (link) async throws in
            let garbage = packet(op: 2, group: 0, command: 0, payload: [0xa1, 0x61, 0x64, 0x7f])
            #expect(try rc(try await link.exchange(garbage).first) == 3)
            let notAMap = packet(op: 2, group: 0, command: 0, payload: [0x01])
            #expect(try rc(try await link.exchange(notAMap).first) == 3)
            let missing = packet(op: 2, group: 0, command: 0, payload: [0xa0])
            #expect(try rc(try await link.exchange(missing).first) == 3)
            let wrongType = packet(op: 2, group: 0, command: 0, payload: CBORWriter().encode(.textMap(["d": .int(5)])))
            #expect(try rc(try await link.exchange(wrongType).first) == 3)
            #expect(try await link.exchange(echo).count == 1)
        }
    }

    @Test("a header that claims more bytes than arrived is ECORRUPT (9); under 8 bytes is dropped")
    func lyingLength() async throws {
        try await withClosing(await RawLink.make(), close: { await $0.close() }) { (link) async throws in
            let lying = packet(op: 2, group: 0, command: 0, payload: [0xa1, 0x61, 0x64, 0x61, 0x78], length: 200)
            let answer = try await link.exchange(lying)
            #expect(try rc(answer.first) == 9)
            #expect(answer.first?.prefix(8) == [0x0b, 0, 0, 5, 0, 0, 0x42, 0][...])
            #expect(try await link.exchange([0x0a, 0, 0, 0], window: .milliseconds(100)).isEmpty)
            #expect(try await link.exchange(echo).count == 1)
        }
    }

    @Test("unknown group, command or operation is ENOTSUP (8) in v1 and v2; a response op is refused too")
    func unsupported() async throws {
        try await withClosing(await RawLink.make(), close: { await $0.close() }) { (link) async throws in
            for version: UInt8 in [0, 1] {
                #expect(try rc(try await link.exchange(packet(version: version, op: 0, group: 77, command: 0, payload: [0xa0])).first) == 8)
                #expect(try rc(try await link.exchange(packet(version: version, op: 0, group: 1, command: 9, payload: [0xa0])).first) == 8)
                #expect(try rc(try await link.exchange(packet(version: version, op: 0, group: 1, command: 1, payload: [0xa0])).first) == 8)
                #expect(try rc(try await link.exchange(packet(version: version, op: 1, group: 0, command: 0, payload: [0xa0])).first) == 8)
            }
            #expect(try await link.exchange(echo).count == 1)
        }
    }

    @Test("version bits 2 and 3 are UNSUPPORTED_TOO_NEW (13) in a v2 header; v1 refused when not built")
    func versions() async throws {
        let link = await RawLink.make()
        for version: UInt8 in [2, 3] {
            let answer = try await link.exchange(packet(version: version, op: 2, group: 0, command: 0, payload: Array(echo.dropFirst(8))))
            #expect(try rc(answer.first) == 13)
            #expect(answer.first.map { ($0[0] >> 3) & 3 } == 1)
        }
        await link.close()
        var c = DeviceConfiguration.testing
        c.supportsSMPv1 = false
        let v2only = await RawLink.make(configuration: c)
        #expect(try rc(try await v2only.exchange(packet(version: 0, op: 2, group: 0, command: 0, payload: Array(echo.dropFirst(8)))).first) == 12)
        await v2only.close()
    }

    @Test("concatenated requests are answered in turn; processing stops at an SMP-level error")
    func concatenated() async throws {
        try await withClosing(await RawLink.make(), close: { await $0.close() }) { (link) async throws in
            let params = bytes("08 00 00 01 00 00 50 06 a0")
            let answers = try await link.exchange(echo + params + echo, expecting: 3)
            #expect(answers.count == 3)
            #expect(answers.map { $0[7] } == [0, 6, 0])
            let bad = packet(op: 0, group: 77, command: 0, payload: [0xa0])
            let stopped = try await link.exchange(echo + bad + echo, expecting: 3, window: .seconds(1))
            #expect(stopped.count == 2)
        }
    }

    @Test("an image chunk past `len` is DATA_OVERRUN; an FS path with `..` is FILE_INVALID_NAME")
    func outOfBounds() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            let image = MCUbootImageMaker.make(version: ImageVersion(2, 0, 0), payloadSize: 1000)
            try await f.request(.write, .image, 1, .textMap(["off": .int(0), "len": .int(image.count), "data": .bytes(Array(image.prefix(500)))]))
            let past = CBORValue.textMap(["off": .int(500), "data": .bytes([UInt8](repeating: 0, count: image.count))])
            #expect(try await f.error(.write, .image, 1, past) == .image(.invalidImageDataOverrun))
            for name in ["/lfs1/../etc/passwd", "lfs1/x", "/lfs1/./x", "/lfs1/a\u{0}b"] {
                let upload = CBORValue.textMap(["off": .int(0), "len": .int(1), "name": .text(name), "data": .bytes([1])])
                #expect(try await f.error(.write, .fs, 0, upload) == .fs(.fileInvalidName), "\(name)")
                #expect(try await f.error(.read, .fs, 0, .textMap(["off": .int(0), "name": .text(name)])) == .fs(.fileInvalidName))
            }
            #expect(try await f.error(.read, .fs, 1, .textMap(["name": .text("")])) == .status(.invalidArgument, reason: nil))
            #expect(try await f.request(.write, .os, 0, .textMap(["d": .text("still here")]))["r"]?.textValue == "still here")
        }
    }

    @Test("a request longer than buf_size is cut to buf_size and so found corrupt (9)")
    func requestTooLarge() async throws {
        var c = DeviceConfiguration.testing
        c.bufferSize = 128
        try await withClosing(await RawLink.make(configuration: c), close: { await $0.close() }) { (link) async throws in
            let long = String(repeating: "y", count: 200)
            let request = packet(op: 2, group: 0, command: 0, payload: CBORWriter().encode(.textMap(["d": .text(long)])))
            #expect(try rc(try await link.exchange(request).first) == 9)
            #expect(try await link.exchange(echo).count == 1)
        }
    }

    @Test("a response too large for buf_size is EMSGSIZE (7)")
    func responseTooLarge() async throws {
        var c = DeviceConfiguration.testing
        c.bufferSize = 64
        try await withClosing(await RawLink.make(configuration: c), close: { await $0.close() }) { (link) async throws in
            let request = packet(op: 0, group: 0, command: 7, payload: CBORWriter().encode(.textMap(["format": .text("a")])))
            #expect(request.count <= 64)
            #expect(try rc(try await link.exchange(request).first) == 7)
        }
    }
}
