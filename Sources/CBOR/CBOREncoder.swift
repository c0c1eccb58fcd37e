#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes `Encodable` values as CBOR: structs become maps with text keys, `Data` becomes a
/// byte string, `nil` optionals are left out, and a `CBORValue` is written as it is.
public struct CBOREncoder: Sendable {
    /// The writer that turns the encoded tree into bytes (canonical by default).
    public var writer: CBORWriter

    /// Makes an encoder.
    public init(writer: CBORWriter = CBORWriter()) {
        self.writer = writer
    }

    /// Encodes a value to CBOR bytes.
    public func encode(_ value: some Encodable) throws -> [UInt8] {
        writer.encode(try encodeValue(value))
    }

    /// Encodes a value to a `CBORValue` tree.
    public func encodeValue(_ value: some Encodable) throws -> CBORValue {
        if let direct = directValue(value) { return direct }
        let box = EncodingBox()
        try value.encode(to: TreeEncoder(box: box, codingPath: []))
        return try box.resolved()
    }
}

/// Values CBOR carries natively instead of through their own `Encodable` conformance.
private func directValue(_ value: Any) -> CBORValue? {
    switch value {
    case let v as CBORValue: return v
    case let v as any CBORValueRepresentable: return v.cborValue
    case let d as Data: return .bytes([UInt8](d))
    default: return nil
    }
}

/// Where one encoded value collects while containers are filled.
private final class EncodingBox {
    enum Content {
        case empty
        case value(CBORValue)
        case keyed([(key: String, box: EncodingBox)])
        case unkeyed([EncodingBox])
    }

    var content: Content = .empty

    func resolved() throws -> CBORValue {
        switch content {
        case .empty: return .map([])
        case .value(let v): return v
        case .keyed(let entries):
            return .map(try entries.map { (key: .text($0.key), value: try $0.box.resolved()) })
        case .unkeyed(let boxes):
            return .array(try boxes.map { try $0.resolved() })
        }
    }

    func child(forKey key: String) -> EncodingBox {
        if case .empty = content { content = .keyed([]) }
        guard case .keyed(var entries) = content else {
            preconditionFailure("keyed container requested on a value already encoded otherwise")
        }
        if let existing = entries.first(where: { $0.key == key }) { return existing.box }
        let box = EncodingBox()
        entries.append((key: key, box: box))
        content = .keyed(entries)
        return box
    }

    func appendChild() -> EncodingBox {
        if case .empty = content { content = .unkeyed([]) }
        guard case .unkeyed(var boxes) = content else {
            preconditionFailure("unkeyed container requested on a value already encoded otherwise")
        }
        let box = EncodingBox()
        boxes.append(box)
        content = .unkeyed(boxes)
        return box
    }

    var unkeyedCount: Int {
        if case .unkeyed(let boxes) = content { return boxes.count }
        return 0
    }
}

private struct TreeEncoder: Encoder {
    let box: EncodingBox
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .empty = box.content { box.content = .keyed([]) }
        return KeyedEncodingContainer(KeyedWriter<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .empty = box.content { box.content = .unkeyed([]) }
        return UnkeyedWriter(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleWriter(box: box, codingPath: codingPath)
    }
}

/// Encodes one value into `box`, natively where CBOR has a form for it.
private func encodeAny(_ value: some Encodable, into box: EncodingBox, codingPath: [any CodingKey]) throws {
    if let direct = directValue(value) {
        box.content = .value(direct)
        return
    }
    try value.encode(to: TreeEncoder(box: box, codingPath: codingPath))
}

private struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: EncodingBox
    let codingPath: [any CodingKey]

    private func set(_ value: CBORValue, _ key: Key) { box.child(forKey: key.stringValue).content = .value(value) }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.text(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.float(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(.float(Double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.unsigned(UInt64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.unsigned(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encodeAny(value, into: box.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = box.child(forKey: key.stringValue)
        child.content = .keyed([])
        return KeyedEncodingContainer(KeyedWriter<NestedKey>(box: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = box.child(forKey: key.stringValue)
        child.content = .unkeyed([])
        return UnkeyedWriter(box: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        TreeEncoder(box: box.child(forKey: "super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(box: box.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedWriter: UnkeyedEncodingContainer {
    let box: EncodingBox
    let codingPath: [any CodingKey]
    var count: Int { box.unkeyedCount }

    private func add(_ value: CBORValue) { box.appendChild().content = .value(value) }

    mutating func encodeNil() throws { add(.null) }
    mutating func encode(_ value: Bool) throws { add(.bool(value)) }
    mutating func encode(_ value: String) throws { add(.text(value)) }
    mutating func encode(_ value: Double) throws { add(.float(value)) }
    mutating func encode(_ value: Float) throws { add(.float(Double(value))) }
    mutating func encode(_ value: Int) throws { add(.int(value)) }
    mutating func encode(_ value: Int8) throws { add(.int(value)) }
    mutating func encode(_ value: Int16) throws { add(.int(value)) }
    mutating func encode(_ value: Int32) throws { add(.int(value)) }
    mutating func encode(_ value: Int64) throws { add(.int(value)) }
    mutating func encode(_ value: UInt) throws { add(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { add(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { add(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { add(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { add(.unsigned(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try encodeAny(value, into: box.appendChild(), codingPath: codingPath + [IndexKey(count)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = box.appendChild()
        child.content = .keyed([])
        return KeyedEncodingContainer(KeyedWriter<NestedKey>(box: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = box.appendChild()
        child.content = .unkeyed([])
        return UnkeyedWriter(box: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        TreeEncoder(box: box.appendChild(), codingPath: codingPath)
    }
}

private struct SingleWriter: SingleValueEncodingContainer {
    let box: EncodingBox
    let codingPath: [any CodingKey]

    private func set(_ value: CBORValue) { box.content = .value(value) }

    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.text(value)) }
    mutating func encode(_ value: Double) throws { set(.float(value)) }
    mutating func encode(_ value: Float) throws { set(.float(Double(value))) }
    mutating func encode(_ value: Int) throws { set(.int(value)) }
    mutating func encode(_ value: Int8) throws { set(.int(value)) }
    mutating func encode(_ value: Int16) throws { set(.int(value)) }
    mutating func encode(_ value: Int32) throws { set(.int(value)) }
    mutating func encode(_ value: Int64) throws { set(.int(value)) }
    mutating func encode(_ value: UInt) throws { set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { set(.unsigned(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try encodeAny(value, into: box, codingPath: codingPath)
    }
}
