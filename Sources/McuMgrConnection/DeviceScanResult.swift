import SMPBLE

/// A device a Bluetooth LE scan found advertising the SMP service.
public struct DeviceScanResult: Sendable, Hashable {
    /// Its address, `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// Its address type.
    public var addressType: BLEAddressType
    /// Its advertised name, when it sent one.
    public var name: String?
    /// The strongest signal seen, in dBm.
    public var rssi: Int?

    /// Makes a result.
    public init(address: String, addressType: BLEAddressType, name: String?, rssi: Int?) {
        self.address = address
        self.addressType = addressType
        self.name = name
        self.rssi = rssi
    }
}
