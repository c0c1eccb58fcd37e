import CDBus
import Glibc

/// A D-Bus value as the BlueZ transport reads and writes it. The bytes are marshalled by libdbus
/// (its message iterators); this is only their Swift form.
indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A descriptor received in a message: libdbus gave us our own duplicate, which the receiver closes.
    case unixFD(Int32)
    /// An array of `element`-typed values (`element` is the element's signature, e.g. `s`, `{sv}`).
    case array(element: String, [DBusValue])
    /// A dictionary entry (only inside an array).
    case entry(DBusValue, DBusValue)
    case variant(DBusValue)
    case structure([DBusValue])

    /// The value's D-Bus signature.
    var signature: String {
        switch self {
        case .byte: return "y"
        case .boolean: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .unixFD: return "h"
        case .array(let element, _): return "a" + element
        case .entry(let key, let value): return "{" + key.signature + value.signature + "}"
        case .variant: return "v"
        case .structure(let fields): return "(" + fields.map(\.signature).joined() + ")"
        }
    }

    /// An `a{sv}` dictionary, BlueZ's options and properties.
    static func options(_ pairs: [(String, DBusValue)]) -> DBusValue {
        .array(element: "{sv}", pairs.map { .entry(.string($0.0), .variant($0.1)) })
    }

    /// An `ay` byte array.
    static func bytes(_ bytes: [UInt8]) -> DBusValue {
        .array(element: "y", bytes.map { .byte($0) })
    }

    // MARK: Reading

    /// The string of a `s`, `o` or `g` value, through a variant.
    var stringValue: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): return text
        case .variant(let inner): return inner.stringValue
        default: return nil
        }
    }

    /// A boolean, through a variant.
    var boolValue: Bool? {
        switch self {
        case .boolean(let flag): return flag
        case .variant(let inner): return inner.boolValue
        default: return nil
        }
    }

    /// A whole number of any width, through a variant.
    var intValue: Int? {
        switch self {
        case .byte(let n): return Int(n)
        case .int16(let n): return Int(n)
        case .uint16(let n): return Int(n)
        case .int32(let n): return Int(n)
        case .uint32(let n): return Int(n)
        case .int64(let n): return Int(n)
        case .uint64(let n): return Int(truncatingIfNeeded: n)
        case .variant(let inner): return inner.intValue
        default: return nil
        }
    }

    /// The bytes of an `ay`, through a variant.
    var bytesValue: [UInt8]? {
        switch self {
        case .array(_, let items):
            var bytes: [UInt8] = []
            bytes.reserveCapacity(items.count)
            for item in items {
                guard case .byte(let b) = item else { return nil }
                bytes.append(b)
            }
            return bytes
        case .variant(let inner): return inner.bytesValue
        default: return nil
        }
    }

    /// The strings of an `as` (or `ao`), through a variant.
    var stringsValue: [String]? {
        switch self {
        case .array(_, let items): return items.compactMap(\.stringValue)
        case .variant(let inner): return inner.stringsValue
        default: return nil
        }
    }

    /// The entries of a dictionary (`a{..}`) with string keys, through a variant.
    var dictionaryValue: [String: DBusValue]? {
        switch self {
        case .array(_, let items):
            var result: [String: DBusValue] = [:]
            for item in items {
                guard case .entry(let key, let value) = item, let name = key.stringValue else { return nil }
                result[name] = value
            }
            return result
        case .variant(let inner): return inner.dictionaryValue
        default: return nil
        }
    }

    /// Every descriptor the value holds (to close those nobody takes).
    var descriptors: [Int32] {
        switch self {
        case .unixFD(let fd): return [fd]
        case .array(_, let items), .structure(let items): return items.flatMap(\.descriptors)
        case .entry(let key, let value): return key.descriptors + value.descriptors
        case .variant(let inner): return inner.descriptors
        default: return []
        }
    }
}

// MARK: - libdbus iterators

extension DBusValue {
    /// The arguments of `message`, read through libdbus's iterator.
    static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        return readAll(&iterator)
    }

    /// The values from `iterator` to its end.
    private static func readAll(_ iterator: inout DBusMessageIter) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != cdbus_type_invalid() {
            if let value = read(&iterator) { values.append(value) }
            if dbus_message_iter_next(&iterator) == 0 { break }
        }
        return values
    }

    /// The value at `iterator` (nil for a type this reader does not know).
    private static func read(_ iterator: inout DBusMessageIter) -> DBusValue? {
        let type = dbus_message_iter_get_arg_type(&iterator)
        switch type {
        case cdbus_type_byte(): return .byte(basic(&iterator, as: UInt8.self))
        case cdbus_type_boolean(): return .boolean(basic(&iterator, as: UInt32.self) != 0)
        case cdbus_type_int16(): return .int16(basic(&iterator, as: Int16.self))
        case cdbus_type_uint16(): return .uint16(basic(&iterator, as: UInt16.self))
        case cdbus_type_int32(): return .int32(basic(&iterator, as: Int32.self))
        case cdbus_type_uint32(): return .uint32(basic(&iterator, as: UInt32.self))
        case cdbus_type_int64(): return .int64(basic(&iterator, as: Int64.self))
        case cdbus_type_uint64(): return .uint64(basic(&iterator, as: UInt64.self))
        case cdbus_type_double(): return .double(basic(&iterator, as: Double.self))
        case cdbus_type_unix_fd(): return .unixFD(basic(&iterator, as: Int32.self))
        case cdbus_type_string(), cdbus_type_object_path(), cdbus_type_signature():
            var pointer: UnsafePointer<CChar>? = nil
            dbus_message_iter_get_basic(&iterator, &pointer)
            let text = pointer.map { String(cString: $0) } ?? ""
            if type == cdbus_type_string() { return .string(text) }
            return type == cdbus_type_object_path() ? .objectPath(text) : .signature(text)
        case cdbus_type_array():
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            let element = elementSignature(&iterator)
            // A byte array in one call: notifications and values arrive as `ay`.
            if dbus_message_iter_get_element_type(&iterator) == cdbus_type_byte() {
                var pointer: UnsafeMutableRawPointer? = nil
                var count: Int32 = 0
                dbus_message_iter_get_fixed_array(&sub, &pointer, &count)
                guard let pointer, count > 0 else { return .array(element: "y", []) }
                let buffer = UnsafeRawBufferPointer(start: pointer, count: Int(count))
                return .array(element: "y", buffer.map { .byte($0) })
            }
            return .array(element: element, readAll(&sub))
        case cdbus_type_dict_entry():
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            let parts = readAll(&sub)
            guard parts.count == 2 else { return nil }
            return .entry(parts[0], parts[1])
        case cdbus_type_variant():
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            return read(&sub).map { .variant($0) }
        case cdbus_type_struct():
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            return .structure(readAll(&sub))
        default:
            return nil
        }
    }

    private static func basic<T: FixedWidthInteger>(_ iterator: inout DBusMessageIter, as: T.Type) -> T {
        var value: T = 0
        dbus_message_iter_get_basic(&iterator, &value)
        return value
    }

    private static func basic(_ iterator: inout DBusMessageIter, as: Double.Type) -> Double {
        var value: Double = 0
        dbus_message_iter_get_basic(&iterator, &value)
        return value
    }

    /// The element signature of the array at `iterator` (its signature without the leading `a`).
    private static func elementSignature(_ iterator: inout DBusMessageIter) -> String {
        guard let signature = dbus_message_iter_get_signature(&iterator) else { return "" }
        defer { dbus_free(signature) }
        return String(String(cString: signature).dropFirst())
    }

    /// Appends `values` to `message` through libdbus's iterator; false when libdbus ran out of memory.
    static func append(_ values: [DBusValue], to message: OpaquePointer) -> Bool {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        return values.allSatisfy { $0.append(to: &iterator) }
    }

    private func append(to iterator: inout DBusMessageIter) -> Bool {
        switch self {
        case .byte(var v): return dbus_message_iter_append_basic(&iterator, cdbus_type_byte(), &v) != 0
        case .boolean(let flag):
            var v: UInt32 = flag ? 1 : 0
            return dbus_message_iter_append_basic(&iterator, cdbus_type_boolean(), &v) != 0
        case .int16(var v): return dbus_message_iter_append_basic(&iterator, cdbus_type_int16(), &v) != 0
        case .uint16(var v): return dbus_message_iter_append_basic(&iterator, cdbus_type_uint16(), &v) != 0
        case .int32(var v): return dbus_message_iter_append_basic(&iterator, cdbus_type_int32(), &v) != 0
        case .uint32(var v): return dbus_message_iter_append_basic(&iterator, cdbus_type_uint32(), &v) != 0
        case .int64(var v): return dbus_message_iter_append_basic(&iterator, cdbus_type_int64(), &v) != 0
        case .uint64(var v): return dbus_message_iter_append_basic(&iterator, cdbus_type_uint64(), &v) != 0
        case .double(var v): return dbus_message_iter_append_basic(&iterator, cdbus_type_double(), &v) != 0
        case .unixFD(var v): return dbus_message_iter_append_basic(&iterator, cdbus_type_unix_fd(), &v) != 0
        case .string(let text): return Self.appendText(text, type: cdbus_type_string(), to: &iterator)
        case .objectPath(let text): return Self.appendText(text, type: cdbus_type_object_path(), to: &iterator)
        case .signature(let text): return Self.appendText(text, type: cdbus_type_signature(), to: &iterator)
        case .array(let element, let items):
            return container(cdbus_type_array(), signature: element, &iterator) { sub in
                if element == "y", let bytes = self.bytesValue {
                    return bytes.withUnsafeBufferPointer { buffer in
                        var base = buffer.baseAddress
                        return dbus_message_iter_append_fixed_array(&sub, cdbus_type_byte(), &base, Int32(buffer.count)) != 0
                    }
                }
                return items.allSatisfy { $0.append(to: &sub) }
            }
        case .entry(let key, let value):
            return container(cdbus_type_dict_entry(), signature: nil, &iterator) { sub in
                key.append(to: &sub) && value.append(to: &sub)
            }
        case .variant(let inner):
            return container(cdbus_type_variant(), signature: inner.signature, &iterator) { sub in inner.append(to: &sub) }
        case .structure(let fields):
            return container(cdbus_type_struct(), signature: nil, &iterator) { sub in fields.allSatisfy { $0.append(to: &sub) } }
        }
    }

    private static func appendText(_ text: String, type: Int32, to iterator: inout DBusMessageIter) -> Bool {
        text.withCString { pointer in
            var p: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iterator, type, &p) != 0
        }
    }

    private func container(
        _ type: Int32, signature: String?, _ iterator: inout DBusMessageIter, _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iterator, type, $0, &sub) } != 0
        } else {
            opened = dbus_message_iter_open_container(&iterator, type, nil, &sub) != 0
        }
        guard opened else { return false }
        guard body(&sub) else {
            dbus_message_iter_abandon_container(&iterator, &sub)
            return false
        }
        return dbus_message_iter_close_container(&iterator, &sub) != 0
    }
}
