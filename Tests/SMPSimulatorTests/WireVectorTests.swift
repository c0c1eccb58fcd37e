import CBOR
import McuBoot
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// Byte-exact exchanges from smp-reference §8, in both map encodings.
@Suite("Reference wire vectors", .virtualTime)
struct WireVectorTests {
    /// The §8.2 test image: 32-byte header (version 1.2.3+4), payload bytes 0, 1, 2, …, SHA-256 TLV.
    static let referenceImage: [UInt8] = {
        var image = bytes("3d b8 f3 96 00 00 00 00 20 00 00 00 00 02 00 00 00 00 00 00 01 02 03 00 04 00 00 00 00 00 00 00")
        image += (0..<512).map { UInt8($0 & 0xff) }
        image += bytes("07 69 28 00 10 00 20 00 150dab841b12b517b5421a0c97ebbb3f2f4df1f12f11f36906eb52301ffb53c5")
        return image
    }()

    @Test("§8.1 echo: definite and indefinite responses")
    func echo() async throws {
        let link = await RawLink.make()
        let request = bytes("0a 00 00 09 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f")
        #expect(try await link.exchange(request) == [bytes("0b 00 00 09 00 00 42 00 a1 61 72 65 68 65 6c 6c 6f")])
        await link.close()
        var c = DeviceConfiguration.testing
        c.usesIndefiniteLengthMaps = true
        let zephyr = await RawLink.make(configuration: c)
        #expect(try await zephyr.exchange(request) == [bytes("0b 00 00 0a 00 00 42 00 bf 61 72 65 68 65 6c 6c 6f ff")])
        // The v1 request gets a v1 response.
        let v1 = bytes("02 00 00 09 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f")
        #expect(try await zephyr.exchange(v1).first?.first == 0x03)
        await zephyr.close()
    }

    @Test("§8.2 upload: the reference image's hashes, first and last responses")
    func upload() async throws {
        let image = Self.referenceImage
        #expect(image.count == 584)
        #expect(hex(fileSHA(image)) == hex(bytes("c5a5fca9c90a7292439ba4a5aaa19d76c0b2d59672073efa89a3ae430aa5e2f7")))
        // The TLV hash is right: MCUboot's check in the device accepts it (see the corrupt-image test for the converse).
        #expect((try? McuBootImage(bytes: image).verifyHash()) != nil)
        let link = await RawLink.make()
        let first = bytes(
            """
            0a 00 00 8a 00 01 10 01 a6 65 69 6d 61 67 65 00 63 6c 65 6e 19 02 48 63 6f 66 66 00
            63 73 68 61 58 20 c5 a5 fc a9 c9 0a 72 92 43 9b a4 a5 aa a1 9d 76 c0 b2 d5 96 72 07 3e fa 89 a3 ae 43 0a a5 e2 f7
            64 64 61 74 61 58 40
            """) + Array(image.prefix(64)) + bytes("67 75 70 67 72 61 64 65 f4")
        #expect(first.count == 146)
        #expect(try await link.exchange(first) == [bytes("0b 00 00 07 00 01 10 01 a1 63 6f 66 66 18 40")])
        // The rest in one chunk: {"off": 64, "data": image[64...]}, seq 0x19.
        let rest = Array(image[64...])
        let cbor = CBORWriter(sortsMapKeys: false).encode(.textMap(["off": .int(64), "data": .bytes(rest)]))
        let last = packet(op: 2, group: 1, sequence: 0x19, command: 1, payload: cbor)
        #expect(try await link.exchange(last) == [bytes("0b 00 00 0f 00 01 19 01 a2 63 6f 66 66 19 02 48 65 6d 61 74 63 68 f5")])
        // State read lists it under the hash of the TLV.
        let state = try await link.exchange(bytes("08 00 00 01 00 01 31 00 a0"))
        let list = try payloadValue(state[0])["images"]?.arrayValue ?? []
        #expect(list.contains { $0["hash"]?.bytesValue == bytes("150dab841b12b517b5421a0c97ebbb3f2f4df1f12f11f36906eb52301ffb53c5") && $0["version"]?.textValue == "1.2.3.4" })
        await link.close()
    }

    @Test("§8.3 errors: HASH_NOT_FOUND in v2 (both encodings) and v1; ENOTSUP for mpstat")
    func errors() async throws {
        let unknownHash = [UInt8](repeating: 0x5a, count: 32)
        let payload = CBORWriter().encode(.textMap(["hash": .bytes(unknownHash), "confirm": .bool(false)]))
        let v2 = packet(version: 1, op: 2, group: 1, sequence: 0x20, command: 0, payload: payload)
        let v1 = packet(version: 0, op: 2, group: 1, sequence: 0x20, command: 0, payload: payload)
        var c = DeviceConfiguration.testing
        c.answersDocumentedOSCommands = false
        let link = await RawLink.make(configuration: c)
        #expect(try await link.exchange(v2) == [bytes("0b 00 00 11 00 01 20 00 a1 63 65 72 72 a2 65 67 72 6f 75 70 01 62 72 63 08")])
        #expect(try await link.exchange(v1) == [bytes("03 00 00 05 00 01 20 00 a1 62 72 63 01")])
        #expect(try await link.exchange(bytes("08 00 00 01 00 00 21 03 a0")) == [bytes("09 00 00 05 00 00 21 03 a1 62 72 63 08")])
        await link.close()
        c.usesIndefiniteLengthMaps = true
        let zephyr = await RawLink.make(configuration: c)
        #expect(try await zephyr.exchange(v2) == [bytes("0b 00 00 13 00 01 20 00 bf 63 65 72 72 bf 65 67 72 6f 75 70 01 62 72 63 08 ff ff")])
        #expect(try await zephyr.exchange(bytes("08 00 00 01 00 00 21 03 a0")) == [bytes("09 00 00 06 00 00 21 03 bf 62 72 63 08 ff")])
        await zephyr.close()
    }

    @Test("§8.4 MCUmgr parameters and reset")
    func parametersAndReset() async throws {
        var c = DeviceConfiguration.testing
        c.bufferSize = 2475
        let link = await RawLink.make(configuration: c)
        #expect(try await link.exchange(bytes("08 00 00 01 00 00 50 06 a0")) == [bytes("09 00 00 18 00 00 50 06 a2 68 62 75 66 5f 73 69 7a 65 19 09 ab 69 62 75 66 5f 63 6f 75 6e 74 04")])
        #expect(try await link.exchange(bytes("0a 00 00 01 00 00 51 05 a0")) == [bytes("0b 00 00 01 00 00 51 05 a0")])
        await link.close()
    }
}
