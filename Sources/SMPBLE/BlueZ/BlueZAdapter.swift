import CBlueZ
import Glibc

/// A local Bluetooth adapter found through libbluetooth: its device id and address.
struct BlueZAdapter: Sendable {
    /// The HCI device id (0 for `hci0`).
    let deviceID: Int32
    /// The adapter's own address (in BlueZ's byte order).
    let address: bdaddr_t

    /// Finds the adapter named `name` (`hci0`) or with address `name` (`00:1A:7D:DA:71:13`), or
    /// the default route when `name` is nil.
    static func find(_ name: String?) throws(BLEError) -> BlueZAdapter {
        errno = 0
        let id: Int32
        if let name {
            id = hci_devid(name)
        } else {
            id = hci_get_route(nil)
        }
        guard id >= 0 else {
            let code = errno == 0 ? ENODEV : errno
            if code == ENODEV, let name { throw .noAdapter("no Bluetooth adapter \(name); check `hciconfig` or `btmgmt info`") }
            throw BLEError.from(errno: code, while: name.map { "finding adapter \($0)" } ?? "finding a Bluetooth adapter")
        }
        var address = bdaddr_t()
        guard hci_devba(id, &address) >= 0 else {
            throw BLEError.from(errno: errno, while: "reading the address of hci\(id)")
        }
        return BlueZAdapter(deviceID: id, address: address)
    }
}

extension BluetoothDeviceAddress {
    /// BlueZ's `bdaddr_t` (least significant byte first).
    var bdaddr: bdaddr_t {
        var value = bdaddr_t()
        let reversed = Array(bytes.reversed())
        withUnsafeMutableBytes(of: &value.b) { raw in
            for index in 0..<6 { raw[index] = reversed[index] }
        }
        return value
    }

    /// Reads a `bdaddr_t`.
    init(bdaddr: bdaddr_t, type: AddressType) {
        var copy = bdaddr
        let little = withUnsafeBytes(of: &copy.b) { Array($0.prefix(6)) }
        self.init(bytes: little.reversed(), type: type)
    }
}
