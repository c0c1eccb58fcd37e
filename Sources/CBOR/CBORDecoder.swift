#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes `Decodable` values from CBOR: maps with text keys become structs (unknown keys are
/// ignored), byte strings become `Data`, and a `CBORValue` property receives the item as it is.
public struct CBORDecoder: Sendable {
    /// The reader that parses bytes (it bounds nesting depth and lengths).
    public var reader: CBORReader

    /// Makes a decoder.
    public init(reader: CBORReader = CBORReader()) {
        self.reader = reader
    }

    /// Decodes a value from CBOR bytes.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        try decode(type, from: try reader.decode(bytes))
    }

    /// Decodes a value from an already parsed item.
    public func decode<T: Decodable>(_ type: T.Type, from value: CBORValue) throws -> T {
        try decodeAny(type, from: value, codingPath: [])
    }
}

private func decodeAny<T: Decodable>(_ type: T.Type, from value: CBORValue, codingPath: [any CodingKey]) throws -> T {
    if type == CBORValue.self { return value as! T }
    if type == Data.self {
        guard case .bytes(let b) = value else {
            throw DecodingError.typeMismatch(Data.self, .init(codingPath: codingPath, debugDescription: "expected a byte string, found \(value)"))
        }
        return Data(b) as! T
    }
    return try T(from: TreeDecoder(value: value, codingPath: codingPath))
}

private struct TreeDecoder: Decoder {
    let value: CBORValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .map(let entries) = value else {
            throw DecodingError.typeMismatch([String: CBORValue].self, .init(codingPath: codingPath, debugDescription: "expected a map, found \(value)"))
        }
        var byKey: [String: CBORValue] = [:]
        for entry in entries {
            guard case .text(let k) = entry.key, byKey[k] == nil else { continue }
            byKey[k] = entry.value
        }
        return KeyedDecodingContainer(KeyedReader<Key>(entries: byKey, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else {
            throw DecodingError.typeMismatch([CBORValue].self, .init(codingPath: codingPath, debugDescription: "expected an array, found \(value)"))
        }
        return UnkeyedReader(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleReader(value: value, codingPath: codingPath)
    }
}

/// Conversions from an item to Swift scalars, with range checks.
private enum Scalar {
    static func mismatch<T>(_ type: T.Type, _ value: CBORValue, _ path: [any CodingKey]) -> DecodingError {
        .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(T.self), found \(value)"))
    }

    static func bool(_ v: CBORValue, _ path: [any CodingKey]) throws -> Bool {
        guard case .bool(let b) = v else { throw mismatch(Bool.self, v, path) }
        return b
    }

    static func string(_ v: CBORValue, _ path: [any CodingKey]) throws -> String {
        guard case .text(let s) = v else { throw mismatch(String.self, v, path) }
        return s
    }

    static func double(_ v: CBORValue, _ path: [any CodingKey]) throws -> Double {
        switch v {
        case .float(let d): return d
        case .unsigned(let n): return Double(n)
        case .negative(let n): return -1 - Double(n)
        default: throw mismatch(Double.self, v, path)
        }
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ v: CBORValue, _ path: [any CodingKey]) throws -> I {
        switch v {
        case .unsigned(let n):
            guard let i = I(exactly: n) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(n) does not fit \(I.self)"))
            }
            return i
        case .negative(let n):
            guard I.isSigned, n <= UInt64(Int64.max), let i = I(exactly: -1 - Int64(n)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(v) does not fit \(I.self)"))
            }
            return i
        default:
            throw mismatch(I.self, v, path)
        }
    }
}

private struct KeyedReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let entries: [String: CBORValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { entries.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { entries[key.stringValue] != nil }

    private func value(_ key: Key) throws -> CBORValue {
        guard let v = entries[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no \"\(key.stringValue)\" in the map"))
        }
        return v
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool {
        switch try value(key) {
        case .null, .undefined: return true
        default: return false
        }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Scalar.bool(value(key), path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try Scalar.string(value(key), path(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Scalar.double(value(key), path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try Scalar.double(value(key), path(key))) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Scalar.integer(type, value(key), path(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try Scalar.integer(type, value(key), path(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try Scalar.integer(type, value(key), path(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try Scalar.integer(type, value(key), path(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try Scalar.integer(type, value(key), path(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try Scalar.integer(type, value(key), path(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try Scalar.integer(type, value(key), path(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try Scalar.integer(type, value(key), path(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try Scalar.integer(type, value(key), path(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try Scalar.integer(type, value(key), path(key)) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeAny(type, from: value(key), codingPath: path(key))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try TreeDecoder(value: value(key), codingPath: path(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try TreeDecoder(value: value(key), codingPath: path(key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        TreeDecoder(value: entries["super"] ?? .null, codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        TreeDecoder(value: try value(key), codingPath: path(key))
    }
}

private struct UnkeyedReader: UnkeyedDecodingContainer {
    let items: [CBORValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(items: [CBORValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next<T>(_ type: T.Type) throws -> (CBORValue, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "array has no element \(currentIndex)"))
        }
        defer { currentIndex += 1 }
        return (items[currentIndex], codingPath + [IndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        switch items[currentIndex] {
        case .null, .undefined:
            currentIndex += 1
            return true
        default:
            return false
        }
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { let (v, p) = try next(type); return try Scalar.bool(v, p) }
    mutating func decode(_ type: String.Type) throws -> String { let (v, p) = try next(type); return try Scalar.string(v, p) }
    mutating func decode(_ type: Double.Type) throws -> Double { let (v, p) = try next(type); return try Scalar.double(v, p) }
    mutating func decode(_ type: Float.Type) throws -> Float { let (v, p) = try next(type); return Float(try Scalar.double(v, p)) }
    mutating func decode(_ type: Int.Type) throws -> Int { let (v, p) = try next(type); return try Scalar.integer(type, v, p) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let (v, p) = try next(type); return try Scalar.integer(type, v, p) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let (v, p) = try next(type); return try Scalar.integer(type, v, p) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let (v, p) = try next(type); return try Scalar.integer(type, v, p) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let (v, p) = try next(type); return try Scalar.integer(type, v, p) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let (v, p) = try next(type); return try Scalar.integer(type, v, p) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let (v, p) = try next(type); return try Scalar.integer(type, v, p) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let (v, p) = try next(type); return try Scalar.integer(type, v, p) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let (v, p) = try next(type); return try Scalar.integer(type, v, p) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let (v, p) = try next(type); return try Scalar.integer(type, v, p) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (v, p) = try next(type)
        return try decodeAny(type, from: v, codingPath: p)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let (v, p) = try next(CBORValue.self)
        return try TreeDecoder(value: v, codingPath: p).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (v, p) = try next(CBORValue.self)
        return try TreeDecoder(value: v, codingPath: p).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (v, p) = try next(CBORValue.self)
        return TreeDecoder(value: v, codingPath: p)
    }
}

private struct SingleReader: SingleValueDecodingContainer {
    let value: CBORValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool {
        switch value {
        case .null, .undefined: return true
        default: return false
        }
    }

    func decode(_ type: Bool.Type) throws -> Bool { try Scalar.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try Scalar.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try Scalar.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { Float(try Scalar.double(value, codingPath)) }
    func decode(_ type: Int.Type) throws -> Int { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Scalar.integer(type, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Scalar.integer(type, value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeAny(type, from: value, codingPath: codingPath) }
}
