import CBOR
import Foundation
import SMPTestSupport

/// The JSON description of a CBOR item written by `scripts/cbor-fixtures/generate.py`.
indirect enum DescribedItem: Decodable {
    case unsigned(UInt64)
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([DescribedItem])
    case map([(DescribedItem, DescribedItem)])
    case tagged(UInt64, DescribedItem)
    case bool(Bool)
    case null
    case undefined
    case simple(UInt8)
    case float(bits: UInt64)

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        func key(_ name: String) -> Key { Key(stringValue: name) }
        func number(_ name: String) throws -> UInt64 {
            let text = try c.decode(String.self, forKey: key(name))
            guard let n = UInt64(text) else {
                throw DecodingError.dataCorruptedError(forKey: key(name), in: c, debugDescription: "not a UInt64: \(text)")
            }
            return n
        }
        if c.contains(key("u")) {
            self = .unsigned(try number("u"))
        } else if c.contains(key("n")) {
            self = .negative(try number("n"))
        } else if c.contains(key("b")) {
            self = .bytes(HexText.bytes(try c.decode(String.self, forKey: key("b"))))
        } else if c.contains(key("t")) {
            self = .text(try c.decode(String.self, forKey: key("t")))
        } else if c.contains(key("a")) {
            self = .array(try c.decode([DescribedItem].self, forKey: key("a")))
        } else if c.contains(key("m")) {
            let pairs = try c.decode([[DescribedItem]].self, forKey: key("m"))
            self = .map(try pairs.map { pair in
                guard pair.count == 2 else {
                    throw DecodingError.dataCorruptedError(forKey: key("m"), in: c, debugDescription: "map entry of \(pair.count) items")
                }
                return (pair[0], pair[1])
            })
        } else if c.contains(key("tag")) {
            self = .tagged(try number("tag"), try c.decode(DescribedItem.self, forKey: key("v")))
        } else if c.contains(key("bool")) {
            self = .bool(try c.decode(Bool.self, forKey: key("bool")))
        } else if c.contains(key("null")) {
            self = .null
        } else if c.contains(key("undefined")) {
            self = .undefined
        } else if c.contains(key("s")) {
            self = .simple(try c.decode(UInt8.self, forKey: key("s")))
        } else if c.contains(key("f")) {
            let text = try c.decode(String.self, forKey: key("f"))
            guard let bits = UInt64(text, radix: 16) else {
                throw DecodingError.dataCorruptedError(forKey: key("f"), in: c, debugDescription: "not hex bits: \(text)")
            }
            self = .float(bits: bits)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown item description \(c.allKeys.map(\.stringValue))"))
        }
    }

    /// The `CBORValue` this description stands for.
    var value: CBORValue {
        switch self {
        case .unsigned(let n): return .unsigned(n)
        case .negative(let n): return .negative(n)
        case .bytes(let b): return .bytes(b)
        case .text(let s): return .text(s)
        case .array(let items): return .array(items.map(\.value))
        case .map(let entries): return .map(entries.map { (key: $0.0.value, value: $0.1.value) })
        case .tagged(let t, let v): return .tagged(t, v.value)
        case .bool(let b): return .bool(b)
        case .null: return .null
        case .undefined: return .undefined
        case .simple(let s): return .simple(s)
        case .float(let bits): return .float(Double(bitPattern: bits))
        }
    }
}

/// One vector of the fixture file.
struct CBORVector: Decodable, Sendable, CustomStringConvertible {
    let hex: String
    let value: CBORValue
    let note: String?

    var bytes: [UInt8] { HexText.bytes(hex) }

    var description: String {
        let shown = hex.count > 64 ? String(hex.prefix(64)) + "…(\(hex.count / 2) bytes)" : hex
        return note.map { "\(shown) [\($0)]" } ?? shown
    }

    private enum CodingKeys: String, CodingKey { case hex, value, note }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hex = try c.decode(String.self, forKey: .hex)
        value = try c.decode(DescribedItem.self, forKey: .value).value
        note = try c.decodeIfPresent(String.self, forKey: .note)
    }
}

/// `Tests/CBORTests/Fixtures/cbor2-vectors.json`, produced by `scripts/cbor-fixtures/generate.py`.
struct CBORFixtureFile: Decodable, Sendable {
    let cbor2: String
    let seed: Int
    let vectors: [CBORVector]
    let indefinite: [CBORVector]
    let smp: [NamedPayload]

    /// An SMP payload (smp-reference §8) as cbor2 encodes it in canonical order.
    struct NamedPayload: Decodable, Sendable {
        let name: String
        let hex: String
    }

    /// The cbor2 bytes of the SMP payload called `name`.
    func smpPayload(_ name: String) throws -> [UInt8] {
        guard let payload = smp.first(where: { $0.name == name }) else {
            throw FixtureError.missing(name)
        }
        return HexText.bytes(payload.hex)
    }

    enum FixtureError: Error { case missing(String) }

    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/cbor2-vectors.json")

    /// Loads the file (parsed once per process).
    static func load() throws -> CBORFixtureFile { try loaded.get() }

    private static let loaded: Result<CBORFixtureFile, any Error> = Result {
        try JSONDecoder().decode(CBORFixtureFile.self, from: Data(contentsOf: url))
    }
}

/// Bit-exact comparison: like `==`, but floats must have the same bit pattern (so 0.0 ≠ -0.0),
/// except that any NaN equals any NaN.
func identical(_ a: CBORValue, _ b: CBORValue) -> Bool {
    switch (a, b) {
    case (.float(let x), .float(let y)):
        return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
    case (.map(let x), .map(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { identical($0.key, $1.key) && identical($0.value, $1.value) }
    case (.tagged(let s, let x), .tagged(let t, let y)):
        return s == t && identical(x, y)
    default:
        return a == b
    }
}
