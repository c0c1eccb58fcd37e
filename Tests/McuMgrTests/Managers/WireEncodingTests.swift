import SMPTestTraits
import SMP
import CBOR
import Foundation
import McuMgr
import SMP
import Testing

/// Request bodies encode to the bytes of smp-reference §8 (canonical CBOR, as cbor2 writes it).
@Suite("Manager requests on the wire", .virtualTime)
struct WireEncodingTests {
    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    @Test func echoRequest() throws {
        #expect(try CBOREncoder().encode(EchoRequest(text: "hello")) == Self.hex("a1 61 64 65 68 65 6c 6c 6f"))
    }

    @Test func firstImageUploadChunk() throws {
        let sha = Self.hex("c5a5fca9c90a7292439ba4a5aaa19d76c0b2d59672073efa89a3ae430aa5e2f7")
        let header = Self.hex("3d b8 f3 96 00 00 00 00 20 00 00 00 00 02 00 00 00 00 00 00 01 02 03 00 04 00 00 00 00 00 00 00")
        let data = header + (0..<32).map { UInt8($0) }
        let chunk = ImageUploadRequest(offset: 0, data: data, length: 584, sha: sha, image: 0, upgrade: false)
        let expected = Self.hex(
            """
            a6 65 69 6d 61 67 65 00 63 6c 65 6e 19 02 48 63 6f 66 66 00 63 73 68 61 58 20
            c5 a5 fc a9 c9 0a 72 92 43 9b a4 a5 aa a1 9d 76 c0 b2 d5 96 72 07 3e fa 89 a3 ae 43 0a a5 e2 f7
            64 64 61 74 61 58 40
            3d b8 f3 96 00 00 00 00 20 00 00 00 00 02 00 00 00 00 00 00 01 02 03 00 04 00 00 00 00 00 00 00
            00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f
            67 75 70 67 72 61 64 65 f4
            """)
        // The reference lists the keys in insertion order; ours are canonical (len, off, sha, data,
        // image, upgrade, as smpclient sends them). Devices read keys in any order.
        let bytes = try CBOREncoder().encode(chunk)
        #expect(bytes.count == expected.count)
        #expect(Self.entries(try CBORReader().decode(bytes)) == Self.entries(try CBORReader().decode(expected)))
        #expect(bytes.prefix(5) == Self.hex("a6 63 6c 65 6e")[...])
    }

    static func entries(_ map: CBORValue) -> [String: CBORValue] {
        var result: [String: CBORValue] = [:]
        for entry in map.mapEntries ?? [] { result[entry.key.textValue ?? "?"] = entry.value }
        return result
    }

    @Test func laterUploadChunkSendsOnlyOffsetAndData() throws {
        let chunk = ImageUploadRequest(offset: 64, data: Array(0x20..<0x30))
        // §8.2 "Next chunk": {"off": 64, "data": bstr(16)}.
        #expect(try CBOREncoder().encode(chunk) == Self.hex("a2 63 6f 66 66 18 40 64 64 61 74 61 50") + Array(0x20..<0x30))
    }

    @Test func uploadAnswersOfTheReference() throws {
        // §8.2: {"off": 64} definite and as Zephyr emits it, then the last answer with the image check.
        for payload in ["a1 63 6f 66 66 18 40", "bf 63 6f 66 66 18 40 ff"] {
            #expect(try CBORDecoder().decode(ImageUploadResponse.self, from: Self.hex(payload)) == ImageUploadResponse(offset: 64))
        }
        let last = Self.hex("a2 63 6f 66 66 19 02 48 65 6d 61 74 63 68 f5")
        #expect(try CBORDecoder().decode(ImageUploadResponse.self, from: last) == ImageUploadResponse(offset: 584, match: true))
    }

    @Test func parametersAnswerOfTheReference() throws {
        // §8.4: {"buf_size": 2475, "buf_count": 4}.
        let payload = Self.hex("a2 68 62 75 66 5f 73 69 7a 65 19 09 ab 69 62 75 66 5f 63 6f 75 6e 74 04")
        #expect(try CBORDecoder().decode(McuMgrParameters.self, from: payload) == McuMgrParameters(bufferSize: 2475, bufferCount: 4))
    }

    @Test func imageTestRequest() throws {
        let hash = [UInt8](repeating: 0x15, count: 32)
        let bytes = try CBOREncoder().encode(ImageStateWriteRequest(hash: hash, confirm: false))
        #expect(bytes == Self.hex("a2 64 68 61 73 68 58 20") + hash + Self.hex("67 63 6f 6e 66 69 72 6d f4"))
        // Confirming the running image sends no hash at all.
        #expect(try CBOREncoder().encode(ImageStateWriteRequest(hash: nil, confirm: true)) == Self.hex("a1 67 63 6f 6e 66 69 72 6d f5"))
    }

    @Test func consoleEchoRequest() throws {
        // cbor2.dumps({"echo": 0}) and {"echo": 1}: Mynewt reads an integer, not a boolean.
        #expect(try CBOREncoder().encode(ConsoleEchoRequest(on: false)) == Self.hex("a1 64 65 63 68 6f 00"))
        #expect(try CBOREncoder().encode(ConsoleEchoRequest(on: true)) == Self.hex("a1 64 65 63 68 6f 01"))
    }

    @Test func emptyRequestsAreEmptyMaps() throws {
        #expect(try CBOREncoder().encode(SMPEmptyMessage()) == [0xa0])
        #expect(try CBOREncoder().encode(ResetRequest()) == [0xa0])
        #expect(try CBOREncoder().encode(ResetRequest(force: true)) == Self.hex("a1 65 66 6f 72 63 65 f5"))
        #expect(try CBOREncoder().encode(BootloaderInfoRequest()) == [0xa0])
        #expect(try CBOREncoder().encode(GroupDetailsRequest()) == [0xa0])
    }

    @Test func slotsInCBORAsCbor2WritesThemAndInJSONWithHexHashes() throws {
        let slot = ImageSlot(image: 1, slot: 1, version: "1.2.3", hash: [0xde, 0xad, 0xbe, 0xef], pending: true)
        // cbor2.dumps({"image": 1, "slot": 1, "version": "1.2.3", "hash": bytes.fromhex("deadbeef"),
        //   "bootable": True, "pending": True, "confirmed": False, "active": False, "permanent": False}, canonical=True)
        let cbor2 = Self.hex(
            """
            a9 64 68 61 73 68 44 de ad be ef 64 73 6c 6f 74 01 65 69 6d 61 67 65 01 66 61 63 74 69 76 65 f4
            67 70 65 6e 64 69 6e 67 f5 67 76 65 72 73 69 6f 6e 65 31 2e 32 2e 33 68 62 6f 6f 74 61 62 6c 65 f5
            69 63 6f 6e 66 69 72 6d 65 64 f4 69 70 65 72 6d 61 6e 65 6e 74 f4
            """)
        #expect(try CBOREncoder().encode(slot) == cbor2)
        #expect(try CBORDecoder().decode(ImageSlot.self, from: cbor2) == slot)

        let json = try JSONEncoder().encode(slot)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["hash"] as? String == "deadbeef")
        #expect(try JSONDecoder().decode(ImageSlot.self, from: Data(#"{"slot": 1, "image": 1, "version": "1.2.3", "hash": "DEADBEEF", "bootable": true, "pending": true}"#.utf8)) == slot)
    }

    @Test func dateTimeText() throws {
        let date = Date(timeIntervalSince1970: 1_709_634_030.9)  // 2024-03-05T10:20:30.9Z
        #expect(DeviceDateTime.format(date, timeZone: TimeZone(identifier: "UTC")!) == "2024-03-05T10:20:30")
        #expect(DeviceDateTime.format(date, timeZone: TimeZone(secondsFromGMT: -3600)!) == "2024-03-05T09:20:30")
        #expect(DeviceDateTime.parse("2024-03-05T10:20:30", timeZone: TimeZone(identifier: "UTC")!) == Date(timeIntervalSince1970: 1_709_634_030))
        #expect(DeviceDateTime.parse("2024-03-05 10:20:30+0100", timeZone: TimeZone(identifier: "UTC")!) == Date(timeIntervalSince1970: 1_709_630_430))
        for bad in ["", "2024-03-05", "2024-13-05T10:20:30", "2024-03-05T10:20:30+", "2024-03-05T10:20:30.", "2024-03-05T10:20:30 junk"] {
            #expect(DeviceDateTime.parse(bad, timeZone: .current) == nil, "\(bad)")
        }
    }
}
