import Hex

/// One CBOR data item (RFC 8949), covering every major type.
///
/// Indefinite-length strings, arrays and maps decode to their definite equivalents:
/// the value model does not keep how an item was framed, only what it is. Only ``tagged(_:_:)``
/// holds its item in a box of its own (arrays and maps keep theirs in their storage): a scalar,
/// string or byte string costs no allocation beyond its own contents.
public enum CBORValue: Sendable {
    /// Major type 0: an unsigned integer up to 2^64 − 1.
    case unsigned(UInt64)
    /// Major type 1: the integer −1 − `n`, so every negative down to −2^64 fits.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map, with its entries in wire order.
    case map([(key: CBORValue, value: CBORValue)])
    /// Major type 6: a tagged item.
    indirect case tagged(UInt64, CBORValue)
    /// Simple values `false` and `true`.
    case bool(Bool)
    /// The simple value `null`.
    case null
    /// The simple value `undefined`.
    case undefined
    /// Any other simple value (0–19 or 32–255).
    case simple(UInt8)
    /// A half, single or double precision float, held as a `Double`.
    case float(Double)
}

extension CBORValue {
    /// Makes an integer value of the right major type from a signed integer.
    public static func int<I: BinaryInteger>(_ value: I) -> CBORValue {
        if value >= 0 {
            return .unsigned(UInt64(value))
        }
        // -1 - n == value  =>  n == -1 - value == ~value (two's complement), computed without overflow.
        let magnitude = UInt64(truncatingIfNeeded: Int64(clamping: value))
        return .negative(~magnitude)
    }

    /// Makes a map from string keys, in the order given.
    public static func textMap(_ entries: KeyValuePairs<String, CBORValue>) -> CBORValue {
        .map(entries.map { (key: CBORValue.text($0.key), value: $0.value) })
    }

    /// Makes a map from string keys, in the order given, leaving out the keys whose value is `nil`
    /// (a message's optional fields).
    public static func textMap(omittingNil entries: KeyValuePairs<String, CBORValue?>) -> CBORValue {
        var kept: [(key: CBORValue, value: CBORValue)] = []
        kept.reserveCapacity(entries.count)
        for entry in entries {
            if let value = entry.value { kept.append((key: .text(entry.key), value: value)) }
        }
        return .map(kept)
    }

    /// The value as an `Int`, when it is an integer that fits.
    public var intValue: Int? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): return n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: return nil
        }
    }

    /// The value as a `UInt64`, when it is a non-negative integer.
    public var uint64Value: UInt64? {
        if case .unsigned(let n) = self { return n }
        return nil
    }

    /// The text, when the value is a text string.
    public var textValue: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    /// The bytes, when the value is a byte string.
    public var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    /// The flag, when the value is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements, when the value is an array.
    public var arrayValue: [CBORValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The entries, when the value is a map.
    public var mapEntries: [(key: CBORValue, value: CBORValue)]? {
        if case .map(let m) = self { return m }
        return nil
    }

    /// The value stored under a text key, when the value is a map holding it (first match).
    public subscript(key: String) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        for entry in entries {
            if case .text(let k) = entry.key, k == key { return entry.value }
        }
        return nil
    }
}

extension CBORValue: Equatable {
    /// Structural equality: maps compare entry by entry in order; NaN equals NaN.
    public static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
        switch (lhs, rhs) {
        case (.unsigned(let a), .unsigned(let b)): return a == b
        case (.negative(let a), .negative(let b)): return a == b
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.text(let a), .text(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.map(let a), .map(let b)):
            guard a.count == b.count else { return false }
            for (x, y) in zip(a, b) where x.key != y.key || x.value != y.value {
                return false
            }
            return true
        case (.tagged(let ta, let va), .tagged(let tb, let vb)): return ta == tb && va == vb
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null), (.undefined, .undefined): return true
        case (.simple(let a), .simple(let b)): return a == b
        case (.float(let a), .float(let b)): return a == b || (a.isNaN && b.isNaN)
        default: return false
        }
    }
}

extension CBORValue: Hashable {
    /// Hashes consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .unsigned(let n): hasher.combine(0); hasher.combine(n)
        case .negative(let n): hasher.combine(1); hasher.combine(n)
        case .bytes(let b): hasher.combine(2); hasher.combine(b)
        case .text(let s): hasher.combine(3); hasher.combine(s)
        case .array(let a): hasher.combine(4); hasher.combine(a)
        case .map(let m):
            hasher.combine(5)
            hasher.combine(m.count)
            for entry in m {
                hasher.combine(entry.key)
                hasher.combine(entry.value)
            }
        case .tagged(let t, let v): hasher.combine(6); hasher.combine(t); hasher.combine(v)
        case .bool(let b): hasher.combine(7); hasher.combine(b)
        case .null: hasher.combine(8)
        case .undefined: hasher.combine(9)
        case .simple(let s): hasher.combine(10); hasher.combine(s)
        case .float(let d): hasher.combine(11); hasher.combine(d.isNaN ? Double.nan.bitPattern : d.bitPattern)
        }
    }
}

extension CBORValue: CustomStringConvertible {
    /// RFC 8949 diagnostic notation (§8), for logs and error messages.
    public var description: String {
        switch self {
        case .unsigned(let n): return String(n)
        case .negative(let n): return n == UInt64.max ? "-18446744073709551616" : "-\(n + 1)"
        case .bytes(let b): return "h'" + b.hexString + "'"
        case .text(let s): return "\"" + s.replacingOccurrencesOfQuote() + "\""
        case .array(let a): return "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .map(let m): return "{" + m.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .tagged(let t, let v): return "\(t)(\(v))"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .undefined: return "undefined"
        case .simple(let s): return "simple(\(s))"
        case .float(let d):
            if d.isNaN { return "NaN" }
            if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
            return String(d)
        }
    }
}

extension String {
    fileprivate func replacingOccurrencesOfQuote() -> String {
        var out = ""
        for ch in self {
            if ch == "\"" || ch == "\\" { out.append("\\") }
            out.append(ch)
        }
        return out
    }
}
