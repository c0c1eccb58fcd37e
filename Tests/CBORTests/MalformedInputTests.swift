import CBOR
import SMPTestSupport
import SMPTestTraits
import Testing

/// Bad input becomes a typed `CBORDecodingError`, never a crash and never an allocation of
/// what a length field claims.
@Suite("Malformed CBOR", .cpuHeavy)
struct MalformedInputTests {
    /// Whether the error says the input stopped early (a truncation, or a length beyond the input).
    static func isTruncation(_ error: CBORDecodingError) -> Bool {
        switch error {
        case .truncated, .lengthExceedsInput: return true
        default: return false
        }
    }

    func decodeError(_ hex: String, reader: CBORReader = CBORReader()) -> CBORDecodingError? {
        do {
            let value = try reader.decode(HexText.bytes(hex))
            Issue.record("0x\(hex) decoded to \(value)")
            return nil
        } catch {
            return error
        }
    }

    @Test("every proper prefix of every fixture and RFC example is reported as truncated")
    func everyPrefixIsTruncated() async throws {
        let file = try CBORFixtureFile.load()
        let inputs = (file.vectors + file.indefinite).map(\.bytes) + RFC8949AppendixATests.examples.map { HexText.bytes($0.hex) }
        var prefixes = 0
        var failures = 0
        for bytes in inputs {
            await Task.yield()  // a long synchronous loop would starve the other tests' tasks
            #expect(throws: CBORDecodingError.empty) { try CBORReader().decode(bytes[0..<0]) }
            for end in 1..<bytes.count {
                prefixes += 1
                do {
                    let value = try CBORReader().decode(bytes[0..<end])
                    failures += 1
                    Issue.record("prefix of \(end) bytes of \(HexText.string(bytes.prefix(40))) decoded to \(value)")
                } catch {
                    if !Self.isTruncation(error) {
                        failures += 1
                        Issue.record("prefix of \(end) bytes of \(HexText.string(bytes.prefix(40))): \(error)")
                    }
                }
                if failures > 10 { return }
            }
        }
        #expect(prefixes > 100_000)
    }

    @Test("a length far beyond the bytes present is refused before anything is allocated")
    func lyingLengths() {
        // Byte and text strings of 2^32 and 2^32 − 1 bytes, with 3 bytes behind the head.
        for hex in ["5b0000000100000000 010203", "5affffffff 010203", "7b0000000100000000 616263", "7affffffff 616263",
                    "5bffffffffffffffff 010203", "7b8000000000000000 616263", "59ffff 00", "78ff 61"] {
            let error = decodeError(hex)
            #expect(error.map(Self.isTruncation) == true, "0x\(hex): \(String(describing: error))")
        }
        // Arrays and maps claiming 2^32, 2^63 and 2^64 − 1 items.
        let claims: [(String, UInt64)] = [
            ("9b0000000100000000", 1 << 32), ("9b8000000000000000", 1 << 63), ("9bffffffffffffffff", .max),
            ("bb0000000100000000", 1 << 32), ("bb8000000000000000", 1 << 63), ("bbffffffffffffffff", .max),
            ("9affffffff", UInt64(UInt32.max)), ("baffffffff", UInt64(UInt32.max)), ("99ffff", 65535), ("b9ffff", 65535),
        ]
        for (head, claimed) in claims {
            let error = decodeError(head + "010203")
            guard case .lengthExceedsInput(let offset, let c, let available)? = error else {
                Issue.record("0x\(head)010203: \(String(describing: error))")
                continue
            }
            #expect(offset == 0)
            #expect(c == claimed)
            #expect(available == HexText.bytes(head).count - 1 + 3)
        }
        // The same claims nested inside a container.
        #expect(decodeError("82 01 bb8000000000000000 00").map(Self.isTruncation) == true)
        #expect(decodeError("9f 9bffffffffffffffff 00 ff").map(Self.isTruncation) == true)
    }

    @Test("nesting 10 000 levels deep (arrays, maps, tags) is refused at the depth limit", arguments: [
        ("definite arrays", "81"), ("indefinite arrays", "9f"), ("definite maps", "a100"), ("indefinite maps", "bf00"),
        ("one-byte tags", "c1"), ("tags 6-20", "c6"), ("two-byte tags", "d864"), ("chunked strings", "5f"),
    ])
    func deepNesting(_ kind: String, _ level: String) {
        let bytes: [UInt8] = Array(Array(repeating: HexText.bytes(level), count: 10_000).joined()) + [0x00]
        #expect(throws: CBORDecodingError.nestingTooDeep(limit: 128)) { try CBORReader().decode(bytes) }
        #expect(throws: CBORDecodingError.nestingTooDeep(limit: 20)) { try CBORReader(maximumDepth: 20).decode(bytes) }
    }

    @Test("the depth limit counts exactly: 128 levels pass, 129 do not")
    func depthLimitIsExact() throws {
        let at = Array(repeating: UInt8(0x81), count: 128) + [0x00]
        var value = try CBORReader().decode(at)
        var depth = 0
        while case .array(let items) = value { depth += 1; value = items[0] }
        #expect(depth == 128)
        #expect(throws: CBORDecodingError.nestingTooDeep(limit: 128)) { try CBORReader().decode([0x81] + at) }
        #expect(try CBORReader(maximumDepth: 129).decode([0x81] + at) == .array([try CBORReader().decode(at)]))
    }

    @Test("the largest arrays and maps an SMP packet can hold decode in linear time")
    func largeContainers() throws {
        // 65 000 one-byte items, definite and indefinite; 32 000 map entries. Before the reader kept
        // open containers in a class, each append copied the elements so far: about two minutes.
        let count = 65_000
        let definite: [UInt8] = [0x99, UInt8(count >> 8), UInt8(count & 0xff)] + Array(repeating: 0x01, count: count)
        #expect(try CBORReader().decode(definite) == .array(Array(repeating: .unsigned(1), count: count)))
        let indefinite: [UInt8] = [0x9f] + Array(repeating: 0xf6, count: count) + [0xff]
        #expect(try CBORReader().decode(indefinite).arrayValue?.count == count)
        let entries = 32_000
        var map: [UInt8] = [0xb9, UInt8(entries >> 8), UInt8(entries & 0xff)]
        for i in 0..<entries { map += CBORWriter().encode(.unsigned(UInt64(i))) + [0xf5] }
        let decoded = try CBORReader().decode(map)
        #expect(decoded.mapEntries?.count == entries)
        #expect(decoded.mapEntries?.last?.key == .unsigned(UInt64(entries - 1)))
    }

    @Test("a break outside an indefinite-length item is malformed")
    func strayBreak() {
        for hex in ["ff", "81ff", "8201ff", "a101ff", "c1ff", "bf01ff", "829fffff", "a1ff00"] {
            guard case .malformed? = decodeError(hex) else {
                Issue.record("0x\(hex) is not reported as malformed")
                continue
            }
        }
        // A break where a definite array still expects items.
        #expect(decodeError("9f 82 01 ff ff").map { if case .malformed = $0 { true } else { false } } == true)
    }

    @Test("reserved additional information 28-30 is malformed in every major type")
    func reservedAdditionalInformation() {
        for major in UInt8(0)...7 {
            for info in UInt8(28)...30 {
                let head = major << 5 | info
                for tail in ["", "00", "0000000000000000"] {
                    let hex = String(head, radix: 16) + tail
                    guard case .malformed(let offset, let reason)? = decodeError(hex) else {
                        Issue.record("0x\(hex) is not reported as malformed")
                        continue
                    }
                    #expect(offset == 0)
                    #expect(reason.contains("reserved"), "\(reason)")
                }
            }
        }
        // Indefinite length where none exists: integers and tags.
        for hex in ["1f", "3f", "df00"] {
            guard case .malformed? = decodeError(hex) else {
                Issue.record("0x\(hex) is not reported as malformed")
                continue
            }
        }
    }

    @Test("invalid UTF-8 in a text string is refused")
    func invalidUTF8() {
        for hex in ["62c328", "61ff", "61c3", "63eda080", "62c080", "64f8888080", "7f62c328ff", "a1 62c328 00", "82 60 61 80"] {
            guard case .invalidUTF8? = decodeError(hex) else {
                Issue.record("0x\(hex) is not reported as invalid UTF-8")
                continue
            }
        }
    }

    @Test("bytes after the item are an error for decode, and left over by decodePrefix")
    func trailingBytes() throws {
        #expect(decodeError("0102") == .trailingBytes(count: 1))
        #expect(decodeError("a0 00 00") == .trailingBytes(count: 2))
        #expect(decodeError("9fff ff") == .trailingBytes(count: 1))
        let (value, consumed) = try CBORReader().decodePrefix(HexText.bytes("a0 00 00"))
        #expect(value == .map([]))
        #expect(consumed == 1)
    }

    @Test("chunks of the wrong kind inside an indefinite-length string are malformed")
    func badChunks() {
        for hex in ["5f6161ff", "7f4161ff", "5f01ff", "5f5f41aaffff", "7f7f6161ffff", "5f80ff", "7fc16161ff"] {
            guard case .malformed? = decodeError(hex) else {
                Issue.record("0x\(hex) is not reported as malformed")
                continue
            }
        }
    }

    @Test("error descriptions name the problem and the offset")
    func descriptions() {
        #expect(decodeError("82 01 ff")?.description.contains("byte 2") == true)
        #expect(decodeError("9b8000000000000000 00")?.description.contains("9223372036854775808") == true)
        #expect(decodeError("62c328")?.description.contains("UTF-8") == true)
        #expect(CBORDecodingError.empty.description.contains("empty"))
    }
}
