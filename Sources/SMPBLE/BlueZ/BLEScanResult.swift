import BLEHost
import GATT

/// A device found by a scan.
public struct BLEScanResult: Sendable, Hashable {
    /// Its address and address type.
    public var address: BluetoothDeviceAddress
    /// Its local name, from the advertising data or the scan response, when it sent one.
    public var name: String?
    /// The strongest signal seen, in dBm.
    public var rssi: Int

    /// Makes a result.
    public init(address: BluetoothDeviceAddress, name: String?, rssi: Int) {
        self.address = address
        self.name = name
        self.rssi = rssi
    }

    /// The result for what BLEHost's ``BLEHost/ScanCollector`` folded together (RSSI 127 when no
    /// report carried one).
    init(_ result: LEScanResult) {
        let type: BluetoothDeviceAddress.AddressType = result.address.kind == .public ? .public : .random
        self.init(address: BluetoothDeviceAddress(bytes: result.address.bytes, type: type), name: result.name, rssi: result.rssi ?? 127)
    }
}

/// Reading the packets of a raw HCI socket (`hci_open_dev`) with BLEHost's HCI decoder.
enum HCISocketPackets {
    /// The advertising reports of one read: the H4 packet-type byte, then an LE Advertising Report
    /// event. Any other packet, or bytes that do not decode, give none.
    static func advertisingReports(in packet: some Collection<UInt8>) -> [AdvertisingReport] {
        var decoder = H4StreamDecoder()
        var reports: [AdvertisingReport] = []
        try? decoder.append(packet) { output in
            guard case .packet(.event(let code, let parameters)) = output,
                case .le(.advertisingReports(let found))? = try? HCIEvent.decode(code: code, parameters: parameters)
            else { return }
            reports += found
        }
        return reports
    }
}
