import GATT

/// The attribute table of the simulated peripheral: Generic Access (device name) and the SMP
/// service with its characteristic (Write Without Response + Notify) and CCCD, as Zephyr's
/// `smp_bt` registers it.
struct SMPGATTDatabase: Sendable {
    /// One attribute.
    struct Attribute: Sendable {
        let handle: UInt16
        let type: BluetoothUUID
        let value: [UInt8]
        let readable: Bool
        /// For a service declaration, the last handle of the service.
        let groupEnd: UInt16?
    }

    /// The SMP service UUID.
    static let serviceUUID = BluetoothUUID(string: "8D53DC1D-1DB7-4CD3-868B-8A527460AA84")!
    /// The SMP characteristic UUID.
    static let characteristicUUID = BluetoothUUID(string: "DA2E7828-FBCE-4E01-AE9E-261174997C48")!

    /// Handle of the SMP characteristic value.
    static let smpValueHandle: UInt16 = 0x0012
    /// Handle of the SMP characteristic's CCCD.
    static let cccdHandle: UInt16 = 0x0013

    let attributes: [Attribute]

    /// Builds the table with the device's name.
    init(deviceName: String) {
        func le(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        let smpProperties = GATTCharacteristicProperties([.writeWithoutResponse, .notify]).rawValue
        attributes = [
            Attribute(handle: 0x0001, type: .primaryService, value: BluetoothUUID.genericAccess.littleEndianBytes, readable: true, groupEnd: 0x0003),
            Attribute(
                handle: 0x0002, type: .characteristic,
                value: [GATTCharacteristicProperties.read.rawValue] + le(0x0003) + BluetoothUUID.deviceName.littleEndianBytes,
                readable: true, groupEnd: nil),
            Attribute(handle: 0x0003, type: .deviceName, value: Array(deviceName.utf8), readable: true, groupEnd: nil),
            Attribute(handle: 0x0010, type: .primaryService, value: Self.serviceUUID.littleEndianBytes, readable: true, groupEnd: 0x0013),
            Attribute(
                handle: 0x0011, type: .characteristic,
                value: [smpProperties] + le(Self.smpValueHandle) + Self.characteristicUUID.littleEndianBytes,
                readable: true, groupEnd: nil),
            Attribute(handle: Self.smpValueHandle, type: Self.characteristicUUID, value: [], readable: false, groupEnd: nil),
            Attribute(handle: Self.cccdHandle, type: .clientCharacteristicConfiguration, value: [0, 0], readable: true, groupEnd: nil),
        ]
    }

    /// The attributes whose handles fall in `start...end`, in handle order.
    func attributes(from start: UInt16, to end: UInt16) -> [Attribute] {
        attributes.filter { $0.handle >= start && $0.handle <= end }
    }

    /// The attribute at `handle`.
    func attribute(at handle: UInt16) -> Attribute? {
        attributes.first { $0.handle == handle }
    }
}
