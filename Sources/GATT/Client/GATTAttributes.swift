/// A primary service found on the peer: its type and the handles it spans.
public struct GATTService: Hashable, Sendable, CustomStringConvertible {
    /// The service UUID.
    public var uuid: BluetoothUUID
    /// The handle of the service declaration.
    public var startHandle: UInt16
    /// The last handle belonging to the service.
    public var endHandle: UInt16

    /// Makes a service record.
    public init(uuid: BluetoothUUID, startHandle: UInt16, endHandle: UInt16) {
        self.uuid = uuid
        self.startHandle = startHandle
        self.endHandle = endHandle
    }

    /// E.g. `service 8D53DC1D-… (0x0010–0x0013)`.
    public var description: String { "service \(uuid) (\(hex(startHandle))–\(hex(endHandle)))" }
}

/// A characteristic found in a service.
public struct GATTCharacteristic: Hashable, Sendable, CustomStringConvertible {
    /// The characteristic UUID.
    public var uuid: BluetoothUUID
    /// The handle of the characteristic declaration.
    public var declarationHandle: UInt16
    /// The handle of the characteristic value (what is written and notified).
    public var valueHandle: UInt16
    /// The last handle belonging to the characteristic (its descriptors end here).
    public var endHandle: UInt16
    /// What the characteristic allows.
    public var properties: GATTCharacteristicProperties

    /// Makes a characteristic record.
    public init(uuid: BluetoothUUID, declarationHandle: UInt16, valueHandle: UInt16, endHandle: UInt16, properties: GATTCharacteristicProperties) {
        self.uuid = uuid
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.endHandle = endHandle
        self.properties = properties
    }

    /// E.g. `characteristic DA2E7828-… value 0x0012 [writeWithoutResponse, notify]`.
    public var description: String { "characteristic \(uuid) value \(hex(valueHandle)) \(properties)" }
}

/// A characteristic descriptor: its handle and type.
public struct GATTDescriptor: Hashable, Sendable {
    /// The descriptor UUID (0x2902 for the Client Characteristic Configuration).
    public var uuid: BluetoothUUID
    /// The descriptor handle.
    public var handle: UInt16

    /// Makes a descriptor record.
    public init(uuid: BluetoothUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }
}

/// Characteristic properties (Core spec Vol 3 Part G 3.3.1.1).
public struct GATTCharacteristicProperties: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The properties byte.
    public let rawValue: UInt8
    /// Wraps a properties byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Broadcast.
    public static let broadcast = GATTCharacteristicProperties(rawValue: 0x01)
    /// Read.
    public static let read = GATTCharacteristicProperties(rawValue: 0x02)
    /// Write Without Response.
    public static let writeWithoutResponse = GATTCharacteristicProperties(rawValue: 0x04)
    /// Write.
    public static let write = GATTCharacteristicProperties(rawValue: 0x08)
    /// Notify.
    public static let notify = GATTCharacteristicProperties(rawValue: 0x10)
    /// Indicate.
    public static let indicate = GATTCharacteristicProperties(rawValue: 0x20)
    /// Authenticated Signed Writes.
    public static let authenticatedSignedWrites = GATTCharacteristicProperties(rawValue: 0x40)
    /// Extended Properties.
    public static let extendedProperties = GATTCharacteristicProperties(rawValue: 0x80)

    /// E.g. `[writeWithoutResponse, notify]`.
    public var description: String {
        let names = ["broadcast", "read", "writeWithoutResponse", "write", "notify", "indicate", "authenticatedSignedWrites", "extendedProperties"]
        return "[" + names.indices.filter { rawValue & (1 << $0) != 0 }.map { names[$0] }.joined(separator: ", ") + "]"
    }
}

/// What the Client Characteristic Configuration asks the server to send (Core spec Vol 3 Part G 3.3.3.3).
public struct GATTClientConfiguration: OptionSet, Hashable, Sendable {
    /// The 16-bit descriptor value.
    public let rawValue: UInt16
    /// Wraps a descriptor value.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Notifications enabled (bit 0).
    public static let notifications = GATTClientConfiguration(rawValue: 0x0001)
    /// Indications enabled (bit 1).
    public static let indications = GATTClientConfiguration(rawValue: 0x0002)

    /// The descriptor value on the wire (little-endian).
    public var bytes: [UInt8] { [UInt8(rawValue & 0xFF), UInt8(rawValue >> 8)] }
}

/// `0x0012`.
func hex(_ handle: UInt16) -> String {
    let text = String(handle, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, 4 - text.count)) + text
}
