import CBOR
import SMPTestSupport
import Testing

/// Every example of RFC 8949 Appendix A (Table 6), decoded and, where the encoding is the
/// preferred one, re-encoded byte for byte.
@Suite("RFC 8949 Appendix A")
struct RFC8949AppendixATests {
    /// How an example's bytes relate to what `CBORWriter` emits for the decoded value.
    enum Form: Sendable {
        /// Preferred serialization: the default writer reproduces the bytes.
        case preferred
        /// Indefinite-length arrays/maps only: a writer with `usesIndefiniteLengthContainers`
        /// and keys kept in order reproduces the bytes.
        case indefiniteContainers
        /// Decode-only: not the preferred form (a float wider than needed), or framing the
        /// value model does not keep (chunked strings, indefinite mixed with definite items).
        case decodeOnly
    }

    struct Example: Sendable, CustomTestStringConvertible {
        let diagnostic: String
        let hex: String
        let value: CBORValue
        let form: Form
        var testDescription: String { "\(diagnostic) = 0x\(hex)" }
    }

    static func ints(_ r: ClosedRange<UInt64>) -> [CBORValue] { r.map { .unsigned($0) } }

    static let examples: [Example] = [
        // Integers.
        Example(diagnostic: "0", hex: "00", value: .unsigned(0), form: .preferred),
        Example(diagnostic: "1", hex: "01", value: .unsigned(1), form: .preferred),
        Example(diagnostic: "10", hex: "0a", value: .unsigned(10), form: .preferred),
        Example(diagnostic: "23", hex: "17", value: .unsigned(23), form: .preferred),
        Example(diagnostic: "24", hex: "1818", value: .unsigned(24), form: .preferred),
        Example(diagnostic: "25", hex: "1819", value: .unsigned(25), form: .preferred),
        Example(diagnostic: "100", hex: "1864", value: .unsigned(100), form: .preferred),
        Example(diagnostic: "1000", hex: "1903e8", value: .unsigned(1000), form: .preferred),
        Example(diagnostic: "1000000", hex: "1a000f4240", value: .unsigned(1_000_000), form: .preferred),
        Example(diagnostic: "1000000000000", hex: "1b000000e8d4a51000", value: .unsigned(1_000_000_000_000), form: .preferred),
        Example(diagnostic: "18446744073709551615", hex: "1bffffffffffffffff", value: .unsigned(UInt64.max), form: .preferred),
        Example(diagnostic: "18446744073709551616", hex: "c249010000000000000000",
                value: .tagged(2, .bytes([1, 0, 0, 0, 0, 0, 0, 0, 0])), form: .preferred),
        Example(diagnostic: "-18446744073709551616", hex: "3bffffffffffffffff", value: .negative(UInt64.max), form: .preferred),
        Example(diagnostic: "-18446744073709551617", hex: "c349010000000000000000",
                value: .tagged(3, .bytes([1, 0, 0, 0, 0, 0, 0, 0, 0])), form: .preferred),
        Example(diagnostic: "-1", hex: "20", value: .negative(0), form: .preferred),
        Example(diagnostic: "-10", hex: "29", value: .negative(9), form: .preferred),
        Example(diagnostic: "-100", hex: "3863", value: .negative(99), form: .preferred),
        Example(diagnostic: "-1000", hex: "3903e7", value: .negative(999), form: .preferred),
        // Floats: half, single and double precision, each in its shortest exact form.
        Example(diagnostic: "0.0", hex: "f90000", value: .float(0.0), form: .preferred),
        Example(diagnostic: "-0.0", hex: "f98000", value: .float(-0.0), form: .preferred),
        Example(diagnostic: "1.0", hex: "f93c00", value: .float(1.0), form: .preferred),
        Example(diagnostic: "1.1", hex: "fb3ff199999999999a", value: .float(1.1), form: .preferred),
        Example(diagnostic: "1.5", hex: "f93e00", value: .float(1.5), form: .preferred),
        Example(diagnostic: "65504.0", hex: "f97bff", value: .float(65504.0), form: .preferred),
        Example(diagnostic: "100000.0", hex: "fa47c35000", value: .float(100000.0), form: .preferred),
        Example(diagnostic: "3.4028234663852886e+38", hex: "fa7f7fffff", value: .float(3.4028234663852886e+38), form: .preferred),
        Example(diagnostic: "1.0e+300", hex: "fb7e37e43c8800759c", value: .float(1.0e+300), form: .preferred),
        Example(diagnostic: "5.960464477539063e-8", hex: "f90001", value: .float(5.960464477539063e-8), form: .preferred),
        Example(diagnostic: "0.00006103515625", hex: "f90400", value: .float(0.00006103515625), form: .preferred),
        Example(diagnostic: "-4.0", hex: "f9c400", value: .float(-4.0), form: .preferred),
        Example(diagnostic: "-4.1", hex: "fbc010666666666666", value: .float(-4.1), form: .preferred),
        Example(diagnostic: "Infinity", hex: "f97c00", value: .float(.infinity), form: .preferred),
        Example(diagnostic: "NaN", hex: "f97e00", value: .float(.nan), form: .preferred),
        Example(diagnostic: "-Infinity", hex: "f9fc00", value: .float(-.infinity), form: .preferred),
        // The same three in single and double precision: valid, but not the preferred form
        // (the writer emits the half-precision f97c00 / f97e00 / f9fc00 above). Decode-only.
        Example(diagnostic: "Infinity (single)", hex: "fa7f800000", value: .float(.infinity), form: .decodeOnly),
        Example(diagnostic: "NaN (single)", hex: "fa7fc00000", value: .float(.nan), form: .decodeOnly),
        Example(diagnostic: "-Infinity (single)", hex: "faff800000", value: .float(-.infinity), form: .decodeOnly),
        Example(diagnostic: "Infinity (double)", hex: "fb7ff0000000000000", value: .float(.infinity), form: .decodeOnly),
        Example(diagnostic: "NaN (double)", hex: "fb7ff8000000000000", value: .float(.nan), form: .decodeOnly),
        Example(diagnostic: "-Infinity (double)", hex: "fbfff0000000000000", value: .float(-.infinity), form: .decodeOnly),
        // Simple values (simple(16) and simple(255) are the ones libcbor 0.8 has no callback for).
        Example(diagnostic: "false", hex: "f4", value: .bool(false), form: .preferred),
        Example(diagnostic: "true", hex: "f5", value: .bool(true), form: .preferred),
        Example(diagnostic: "null", hex: "f6", value: .null, form: .preferred),
        Example(diagnostic: "undefined", hex: "f7", value: .undefined, form: .preferred),
        Example(diagnostic: "simple(16)", hex: "f0", value: .simple(16), form: .preferred),
        Example(diagnostic: "simple(255)", hex: "f8ff", value: .simple(255), form: .preferred),
        // Tags.
        Example(diagnostic: "0(\"2013-03-21T20:04:00Z\")", hex: "c074323031332d30332d32315432303a30343a30305a",
                value: .tagged(0, .text("2013-03-21T20:04:00Z")), form: .preferred),
        Example(diagnostic: "1(1363896240)", hex: "c11a514b67b0", value: .tagged(1, .unsigned(1_363_896_240)), form: .preferred),
        Example(diagnostic: "1(1363896240.5)", hex: "c1fb41d452d9ec200000", value: .tagged(1, .float(1_363_896_240.5)), form: .preferred),
        Example(diagnostic: "23(h'01020304')", hex: "d74401020304", value: .tagged(23, .bytes([1, 2, 3, 4])), form: .preferred),
        Example(diagnostic: "24(h'6449455446')", hex: "d818456449455446", value: .tagged(24, .bytes([0x64, 0x49, 0x45, 0x54, 0x46])), form: .preferred),
        Example(diagnostic: "32(\"http://www.example.com\")", hex: "d82076687474703a2f2f7777772e6578616d706c652e636f6d",
                value: .tagged(32, .text("http://www.example.com")), form: .preferred),
        // Byte and text strings.
        Example(diagnostic: "h''", hex: "40", value: .bytes([]), form: .preferred),
        Example(diagnostic: "h'01020304'", hex: "4401020304", value: .bytes([1, 2, 3, 4]), form: .preferred),
        Example(diagnostic: "\"\"", hex: "60", value: .text(""), form: .preferred),
        Example(diagnostic: "\"a\"", hex: "6161", value: .text("a"), form: .preferred),
        Example(diagnostic: "\"IETF\"", hex: "6449455446", value: .text("IETF"), form: .preferred),
        Example(diagnostic: "\"\\\"\\\\\"", hex: "62225c", value: .text("\"\\"), form: .preferred),
        Example(diagnostic: "\"\\u00fc\"", hex: "62c3bc", value: .text("\u{00fc}"), form: .preferred),
        Example(diagnostic: "\"\\u6c34\"", hex: "63e6b0b4", value: .text("\u{6c34}"), form: .preferred),
        Example(diagnostic: "\"\\ud800\\udd51\"", hex: "64f0908591", value: .text("\u{10151}"), form: .preferred),
        // Arrays and maps.
        Example(diagnostic: "[]", hex: "80", value: .array([]), form: .preferred),
        Example(diagnostic: "[1, 2, 3]", hex: "83010203", value: .array(ints(1...3)), form: .preferred),
        Example(diagnostic: "[1, [2, 3], [4, 5]]", hex: "8301820203820405",
                value: .array([.unsigned(1), .array(ints(2...3)), .array(ints(4...5))]), form: .preferred),
        Example(diagnostic: "[1, 2, ..., 25]", hex: "98190102030405060708090a0b0c0d0e0f101112131415161718181819",
                value: .array(ints(1...25)), form: .preferred),
        Example(diagnostic: "{}", hex: "a0", value: .map([]), form: .preferred),
        Example(diagnostic: "{1: 2, 3: 4}", hex: "a201020304",
                value: .map([(key: .unsigned(1), value: .unsigned(2)), (key: .unsigned(3), value: .unsigned(4))]), form: .preferred),
        Example(diagnostic: "{\"a\": 1, \"b\": [2, 3]}", hex: "a26161016162820203",
                value: .textMap(["a": .unsigned(1), "b": .array(ints(2...3))]), form: .preferred),
        Example(diagnostic: "[\"a\", {\"b\": \"c\"}]", hex: "826161a161626163",
                value: .array([.text("a"), .textMap(["b": .text("c")])]), form: .preferred),
        Example(diagnostic: "{\"a\": \"A\", ..., \"e\": \"E\"}", hex: "a56161614161626142616361436164614461656145",
                value: .textMap(["a": .text("A"), "b": .text("B"), "c": .text("C"), "d": .text("D"), "e": .text("E")]), form: .preferred),
        // Indefinite lengths.
        Example(diagnostic: "(_ h'0102', h'030405')", hex: "5f42010243030405ff", value: .bytes([1, 2, 3, 4, 5]), form: .decodeOnly),
        Example(diagnostic: "(_ \"strea\", \"ming\")", hex: "7f657374726561646d696e67ff", value: .text("streaming"), form: .decodeOnly),
        Example(diagnostic: "[_ ]", hex: "9fff", value: .array([]), form: .indefiniteContainers),
        Example(diagnostic: "[_ 1, [2, 3], [_ 4, 5]]", hex: "9f018202039f0405ffff",
                value: .array([.unsigned(1), .array(ints(2...3)), .array(ints(4...5))]), form: .decodeOnly),
        Example(diagnostic: "[_ 1, [2, 3], [4, 5]]", hex: "9f01820203820405ff",
                value: .array([.unsigned(1), .array(ints(2...3)), .array(ints(4...5))]), form: .decodeOnly),
        Example(diagnostic: "[1, [2, 3], [_ 4, 5]]", hex: "83018202039f0405ff",
                value: .array([.unsigned(1), .array(ints(2...3)), .array(ints(4...5))]), form: .decodeOnly),
        Example(diagnostic: "[1, [_ 2, 3], [4, 5]]", hex: "83019f0203ff820405",
                value: .array([.unsigned(1), .array(ints(2...3)), .array(ints(4...5))]), form: .decodeOnly),
        Example(diagnostic: "[_ 1, 2, ..., 25]", hex: "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff",
                value: .array(ints(1...25)), form: .indefiniteContainers),
        Example(diagnostic: "{_ \"a\": 1, \"b\": [_ 2, 3]}", hex: "bf61610161629f0203ffff",
                value: .textMap(["a": .unsigned(1), "b": .array(ints(2...3))]), form: .indefiniteContainers),
        Example(diagnostic: "[\"a\", {_ \"b\": \"c\"}]", hex: "826161bf61626163ff",
                value: .array([.text("a"), .textMap(["b": .text("c")])]), form: .decodeOnly),
        Example(diagnostic: "{_ \"Fun\": true, \"Amt\": -2}", hex: "bf6346756ef563416d7421ff",
                value: .textMap(["Fun": .bool(true), "Amt": .negative(1)]), form: .indefiniteContainers),
    ]

    // RFC 7049's table also listed simple(24) = 0xf818; RFC 8949 dropped it, as §3.3 makes 0xf8
    // followed by a byte below 0x20 not well-formed (checked as malformed below).
    @Test("the table is complete: 81 examples")
    func tableIsComplete() {
        #expect(Self.examples.count == 81)
        #expect(Set(Self.examples.map(\.hex)).count == Self.examples.count)
    }

    @Test("each example decodes to the expected value", arguments: examples)
    func decodes(_ example: Example) throws {
        let decoded = try CBORReader().decode(HexText.bytes(example.hex))
        #expect(identical(decoded, example.value), "decoded \(decoded)")
        // decodePrefix agrees and takes every byte.
        let (prefixValue, consumed) = try CBORReader().decodePrefix(HexText.bytes(example.hex))
        #expect(consumed == example.hex.count / 2)
        #expect(identical(prefixValue, example.value))
    }

    @Test("each example in preferred form re-encodes byte for byte", arguments: examples.filter { $0.form == .preferred })
    func reencodesPreferred(_ example: Example) {
        #expect(HexText.string(CBORWriter().encode(example.value)) == example.hex)
    }

    @Test("indefinite-length container examples re-encode with the indefinite writer",
          arguments: examples.filter { $0.form == .indefiniteContainers })
    func reencodesIndefinite(_ example: Example) {
        let writer = CBORWriter(sortsMapKeys: false, usesIndefiniteLengthContainers: true)
        #expect(HexText.string(writer.encode(example.value)) == example.hex)
    }

    @Test("decode-only examples re-encode to the preferred form of the same value",
          arguments: examples.filter { $0.form == .decodeOnly })
    func decodeOnlyReencodesPreferred(_ example: Example) throws {
        let decoded = try CBORReader().decode(HexText.bytes(example.hex))
        let preferred = CBORWriter().encode(decoded)
        #expect(HexText.string(preferred) != example.hex)
        #expect(identical(try CBORReader().decode(preferred), example.value))
    }

    @Test("every unassigned simple value and every one-byte tag head reads through the reader's own path")
    func simpleValuesAndTagsLibcborRefuses() throws {
        // 0xe0...0xf3: simple(0)...simple(19); 0xf8 20...0xf8 ff (32 and up are well-formed).
        for v in UInt8(0)...19 {
            #expect(try CBORReader().decode([0xe0 + v]) == .simple(v))
            #expect(CBORWriter().encode(.simple(v)) == [0xe0 + v])
        }
        for v in UInt8(32)...255 {
            #expect(try CBORReader().decode([0xf8, v]) == .simple(v))
            #expect(CBORWriter().encode(.simple(v)) == [0xf8, v])
        }
        // RFC 8949 §3.3: 0xf8 with a value below 32 is not well-formed.
        for v in UInt8(0)...31 {
            #expect(throws: CBORDecodingError.self) { try CBORReader().decode([0xf8, v]) }
        }
        // Tags 0-23 in the one-byte head (libcbor 0.8 refuses 6-20 by itself).
        for t in UInt8(0)...23 {
            #expect(try CBORReader().decode([0xc0 + t, 0x01]) == .tagged(UInt64(t), .unsigned(1)), "tag \(t)")
            #expect(CBORWriter().encode(.tagged(UInt64(t), .unsigned(1))) == [0xc0 + t, 0x01])
        }
        #expect(try CBORReader().decode(HexText.bytes("c6 c7 d4 80")) == .tagged(6, .tagged(7, .tagged(20, .array([])))))
    }
}
