import Hex

/// `CBORValue` as a `Codable` value, so it can sit inside typed requests and responses.
///
/// With `CBOREncoder`/`CBORDecoder` the item passes through unchanged. With other coders
/// (JSON for the command line's `--json`) it maps to the nearest natural form: byte strings
/// become lowercase hex text, maps with non-text keys use the keys' diagnostic notation.
extension CBORValue: Codable {
    private struct DynamicKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Encodes the item in its natural form for a non-CBOR encoder.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .unsigned(let n):
            var c = encoder.singleValueContainer()
            try c.encode(n)
        case .negative(let n):
            var c = encoder.singleValueContainer()
            if n < UInt64(Int64.max) { try c.encode(-1 - Int64(n)) } else { try c.encode(-1 - Double(n)) }
        case .bytes(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b.hexString)
        case .text(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .map(let entries):
            var c = encoder.container(keyedBy: DynamicKey.self)
            for entry in entries {
                let key = entry.key.textValue ?? entry.key.description
                try c.encode(entry.value, forKey: DynamicKey(stringValue: key))
            }
        case .tagged(_, let inner):
            try inner.encode(to: encoder)
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .null, .undefined:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .simple(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .float(let d):
            var c = encoder.singleValueContainer()
            try c.encode(d)
        }
    }

    /// Decodes the natural form a non-CBOR decoder offers (CBORDecoder hands the item over directly).
    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: DynamicKey.self) {
            self = .map(try keyed.allKeys.map { (key: .text($0.stringValue), value: try keyed.decode(CBORValue.self, forKey: $0)) })
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var items: [CBORValue] = []
            while !unkeyed.isAtEnd { items.append(try unkeyed.decode(CBORValue.self)) }
            self = .array(items)
            return
        }
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let u = try? c.decode(UInt64.self) { self = .unsigned(u) }
        else if let i = try? c.decode(Int64.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .float(d) }
        else { self = .text(try c.decode(String.self)) }
    }
}
