import GATT

/// The advertising data of one report, read as AD structures (Core Specification Supplement Part A).
///
/// Only what the host needs is interpreted: flags, 128-bit (and 16-bit) service UUIDs and the
/// complete or shortened local name. Parsing stops at a zero length or at a structure that runs
/// past the data; what came before it is kept.
public struct AdvertisingData: Sendable, Hashable {
    /// The raw bytes (at most 31 in a legacy advertisement).
    public let bytes: [UInt8]

    /// Wraps the bytes of an advertisement or scan response.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The AD structures as (type, value) pairs, in order.
    public var structures: [(type: UInt8, value: ArraySlice<UInt8>)] {
        var result: [(type: UInt8, value: ArraySlice<UInt8>)] = []
        var position = 0
        while position < bytes.count {
            let length = Int(bytes[position])
            guard length > 0, position + 1 + length <= bytes.count else { break }
            result.append((bytes[position + 1], bytes[(position + 2)..<(position + 1 + length)]))
            position += 1 + length
        }
        return result
    }

    /// The Flags structure (0x01), if present.
    public var flags: UInt8? {
        structures.first { $0.type == 0x01 && !$0.value.isEmpty }.map { $0.value.first! }
    }

    /// Service UUIDs listed: 16-bit (0x02, 0x03) and 128-bit (0x06, 0x07), incomplete or complete.
    public var serviceUUIDs: [BluetoothUUID] {
        structures.flatMap { entry -> [BluetoothUUID] in
            let width: Int
            switch entry.type {
            case 0x02, 0x03: width = 2
            case 0x06, 0x07: width = 16
            default: return []
            }
            let value = Array(entry.value)
            return stride(from: 0, to: value.count - width + 1, by: width).compactMap {
                BluetoothUUID(littleEndian: value[$0..<($0 + width)])
            }
        }
    }

    /// The complete local name (0x09), else the shortened one (0x08); invalid UTF-8 is repaired.
    public var localName: String? {
        let names = structures.filter { $0.type == 0x09 || $0.type == 0x08 }
        guard let name = names.first(where: { $0.type == 0x09 }) ?? names.first else { return nil }
        return String(decoding: name.value, as: UTF8.self)
    }

    /// Whether the local name given is the complete one (false when shortened or absent).
    public var hasCompleteName: Bool { structures.contains { $0.type == 0x09 } }
}
