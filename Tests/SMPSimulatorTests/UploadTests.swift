import CBOR
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// Image upload as `img_mgmt_upload()` answers it (smp-reference §3.2).
@Suite("Image upload", .virtualTime)
struct UploadTests {
    let image = MCUbootImageMaker.make(version: ImageVersion(2, 0, 0), payloadSize: 12_000, seed: 3)

    func chunk(_ off: Int, _ count: Int, first: Bool = false, sha: [UInt8]? = nil, image data: [UInt8]) -> CBORValue {
        var fields: [(key: CBORValue, value: CBORValue)] = [
            (key: .text("off"), value: .int(off)), (key: .text("data"), value: .bytes(Array(data[off..<off + count]))),
        ]
        if first {
            fields.append((key: .text("len"), value: .int(data.count)))
            if let sha { fields.append((key: .text("sha"), value: .bytes(sha))) }
        }
        return .map(fields)
    }

    @Test("a new upload with the sha of a partial one resumes at the saved offset")
    func resumeBySha() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            let sha = fileSHA(image)
            var r = try await f.request(.write, .image, 1, chunk(0, 1000, first: true, sha: sha, image: image))
            #expect(r["off"]?.intValue == 1000)
            r = try await f.request(.write, .image, 1, chunk(1000, 1000, image: image))
            #expect(r["off"]?.intValue == 2000)
            // Starting again with the same sha: nothing is written, the device answers where it stands.
            r = try await f.request(.write, .image, 1, chunk(0, 1000, first: true, sha: sha, image: image))
            #expect(r["off"]?.intValue == 2000)
            #expect(await f.device.partialUpload?.offset == 2000)
            // A different sha starts over.
            let other = [UInt8](repeating: 9, count: 32)
            r = try await f.request(.write, .image, 1, chunk(0, 500, first: true, sha: other, image: image))
            #expect(r["off"]?.intValue == 500)
        }
    }

    @Test("a chunk at the wrong offset is answered with success and the offset expected")
    func offsetMismatch() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            try await f.request(.write, .image, 1, chunk(0, 1000, first: true, image: image))
            let r = try await f.request(.write, .image, 1, chunk(3000, 100, image: image))
            #expect(r.mapEntries?.count == 1)
            #expect(r["off"]?.intValue == 1000)
            // Without an upload in progress the expected offset is 0.
            let g = await Fixture.make()
            let r0 = try await g.request(.write, .image, 1, chunk(500, 100, image: image))
            #expect(r0["off"]?.intValue == 0)
            await g.close()
        }
    }

    @Test("off + len(data) past len is DATA_OVERRUN and ends the upload")
    func overrun() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            let small = Array(image.prefix(2000))
            try await f.request(.write, .image, 1, chunk(0, 1000, first: true, image: small))
            let big: CBORValue = .textMap(["off": .int(1000), "data": .bytes([UInt8](repeating: 0, count: 1500))])
            #expect(try await f.error(.write, .image, 1, big) == .image(.invalidImageDataOverrun))
            #expect(await f.device.partialUpload == nil)
        }
    }

    @Test("first-chunk checks in order: header, length, magic, sha length, slot size")
    func firstChunkChecks() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            #expect(try await f.error(.write, .image, 1, .textMap(["data": .bytes(Array(image.prefix(64)))])) == .image(.invalidOffset))
            #expect(try await f.error(.write, .image, 1, .textMap(["off": .int(0), "len": .int(100), "data": .bytes(Array(image.prefix(31)))])) == .image(.invalidImageHeader))
            #expect(try await f.error(.write, .image, 1, .textMap(["off": .int(0), "data": .bytes(Array(image.prefix(64)))])) == .image(.invalidLength))
            var badMagic = Array(image.prefix(64))
            badMagic[0] = 0
            #expect(try await f.error(.write, .image, 1, .textMap(["off": .int(0), "len": .int(100), "data": .bytes(badMagic)])) == .image(.invalidImageHeaderMagic))
            #expect(try await f.error(.write, .image, 1, .textMap(["off": .int(0), "len": .int(100), "data": .bytes(Array(image.prefix(64))), "sha": .bytes([UInt8](repeating: 1, count: 33))])) == .image(.invalidHash))
            #expect(try await f.error(.write, .image, 1, .textMap(["off": .int(0), "len": .int(0x10001), "data": .bytes(Array(image.prefix(64)))])) == .image(.invalidImageTooLarge))
            #expect(try await f.error(.write, .image, 1, .textMap(["off": .int(0), "len": .int(100), "image": .int(5), "data": .bytes(Array(image.prefix(64)))])) == .image(.noFreeSlot))
            // A field of the wrong type fails the decode: EINVAL.
            #expect(try await f.error(.write, .image, 1, .textMap(["off": .text("0")])) == .status(.invalidArgument, reason: nil))
        }
    }

    @Test("the final response says whether the slot matches `sha`; an existing match skips the transfer")
    func matchAndSkip() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            let good = try await f.upload(image)
            #expect(good["off"]?.intValue == image.count)
            #expect(good["match"]?.boolValue == true)
            // The same file again: answered at once with off = len and match.
            let sha = fileSHA(image)
            let again = try await f.request(.write, .image, 1, chunk(0, 64, first: true, sha: sha, image: image))
            #expect(again["off"]?.intValue == image.count)
            #expect(again["match"]?.boolValue == true)
            // A wrong sha uploads but reports no match.
            let wrong = try await f.upload(image, sha: [UInt8](repeating: 7, count: 32))
            #expect(wrong["match"]?.boolValue == false)
            // Without image checking there is no `match` key.
            var c = DeviceConfiguration.testing
            c.checksUploadedImages = false
            let g = await Fixture.make(configuration: c)
            let plain = try await g.upload(image)
            #expect(plain["match"] == nil)
            #expect(plain.mapEntries?.count == 1)
            await g.close()
        }
    }

    @Test("the upload state is lost on reset, or kept when configured")
    func stateAcrossReset() async throws {
        for keeps in [false, true] {
            var c = DeviceConfiguration.testing
            c.keepsUploadStateAcrossReset = keeps
            let f = await Fixture.make(configuration: c)
            let sha = fileSHA(image)
            try await f.request(.write, .image, 1, chunk(0, 1000, first: true, sha: sha, image: image))
            try await f.resetAndWait()
            let r = try await f.request(.write, .image, 1, chunk(1000, 1000, image: image))
            #expect(r["off"]?.intValue == (keeps ? 2000 : 0))
            await f.close()
        }
    }

    @Test("a reset fault at an upload offset reboots without answering; the upload restarts from 0")
    func resetFault() async throws {
        var faults = FaultConfiguration()
        faults.resetAtUploadOffset = 4000
        try await withClosing(await Fixture.make(faults: faults, timeout: .milliseconds(300)), close: { await $0.close() }) { (f) async throws in
            do {
                try await f.upload(image)
                Issue.record("the upload should time out at the fault")
            } catch SMPError.timeout {
            }
            #expect(await f.device.bootCount == 2)
            #expect(await f.device.partialUpload == nil)
            await f.device.waitUntilOnline()
            // The fault fires once: the next upload completes.
            let r = try await f.upload(image)
            #expect(r["match"]?.boolValue == true)
        }
    }

    @Test("a disconnect fault drops the loopback link; after reconnecting the upload resumes by sha")
    func disconnectFault() async throws {
        var faults = FaultConfiguration()
        faults.disconnectAtUploadOffset = 5000
        faults.reconnectDelay = .milliseconds(100)
        try await withClosing(await Fixture.make(faults: faults), close: { await $0.close() }) { (f) async throws in
            do {
                try await f.upload(image)
                Issue.record("the upload should fail at the disconnect")
            } catch SMPError.transport {
            }
            #expect(await f.device.partialUpload?.offset == 5120)
            // Refused while the link is down, accepted after the delay.
            await #expect(throws: SMPTransportError.self) { try await f.transport.connect() }
            try await VirtualRuntime.currentClock.sleep(for: .milliseconds(150))
            try await f.transport.connect()
            let sha = fileSHA(image)
            let resumed = try await f.request(.write, .image, 1, chunk(0, 64, first: true, sha: sha, image: image))
            #expect(resumed["off"]?.intValue == 5120)
            let r = try await f.upload(image)
            #expect(r["match"]?.boolValue == true)
            #expect(await f.device.slotContents(image: 0, slot: 1) == image)
        }
    }
}
