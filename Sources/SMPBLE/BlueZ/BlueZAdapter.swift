import CBlueZ
import Glibc

/// A local Bluetooth adapter found through libbluetooth: its device id and address.
struct BlueZAdapter: Sendable {
    /// The HCI device id (0 for `hci0`).
    let deviceID: Int32
    /// The adapter's own address (in BlueZ's byte order).
    let address: bdaddr_t

    /// Finds the adapter named `name` (`hci0`) or with address `name` (`00:1A:7D:DA:71:13`), or
    /// the default route when `name` is nil; it must be powered on.
    ///
    /// libbluetooth's lookups see only adapters that are up, so an adapter that is there but
    /// down would read as missing: an `hciN` name and the default are looked up by number instead
    /// (the default among the adapters the kernel manages, see ``BlueZManagement``), and a
    /// powered-off adapter fails with ``BLEError/adapterOff(_:)``.
    static func find(_ name: String?) throws(BLEError) -> BlueZAdapter {
        let library = try LibBluetooth.functions()
        let id: Int32
        if let name, let number = hciNumber(name) {
            id = number
        } else if let name {
            errno = 0
            id = library.devid(name)
            guard id >= 0 else {
                let code = errno == 0 ? ENODEV : errno
                if code == ENODEV { throw .noAdapter("no Bluetooth adapter \(name) that is powered on; check `btmgmt info` or `hciconfig`") }
                throw BLEError.from(errno: code, while: "finding adapter \(name)")
            }
        } else {
            id = try defaultAdapter(library)
        }
        return try adapter(id, named: name ?? "hci\(id)", library)
    }

    /// The first adapter the kernel's stack manages that is up, else the first there (so that the
    /// message says it is off). Without an answer from mgmt, libbluetooth's default route (which
    /// may pick an adapter another program holds through the user channel).
    private static func defaultAdapter(_ library: LibBluetooth) throws(BLEError) -> Int32 {
        let candidates: [Int32]
        if let managed = BlueZManagement.managedAdapters() {
            candidates = managed.sorted()
        } else {
            errno = 0
            let route = library.getRoute(nil)
            let code = errno
            // No Bluetooth in this kernel, or no permission: say so rather than "no adapter".
            if route < 0, [EAFNOSUPPORT, EPROTONOSUPPORT, EPERM, EACCES].contains(code) {
                throw BLEError.from(errno: code, while: "finding a Bluetooth adapter")
            }
            candidates = route >= 0 ? [route] : Array(0..<Int32(64))
        }
        var present: [(id: Int32, up: Bool)] = []
        for id in candidates {
            if let info = try information(id, library) { present.append((id, isUp(info))) }
        }
        guard let first = present.first else {
            throw .noAdapter("no Bluetooth adapter: the kernel manages none (list them with `btmgmt info`; one held through the HCI user channel is not the kernel's)")
        }
        return (present.first { $0.up } ?? first).id
    }

    /// The adapter `id`, once it is known to be there and up.
    private static func adapter(_ id: Int32, named name: String, _ library: LibBluetooth) throws(BLEError) -> BlueZAdapter {
        guard let info = try information(id, library) else {
            throw .noAdapter("no Bluetooth adapter \(name); list them with `btmgmt info` or `hciconfig`")
        }
        guard isUp(info) else {
            throw .adapterOff("the Bluetooth adapter hci\(id) is powered off: power it on with `btmgmt --index \(id) power on` (or `bluetoothctl power on`)")
        }
        return BlueZAdapter(deviceID: id, address: info.bdaddr)
    }

    private static func isUp(_ info: hci_dev_info) -> Bool { info.flags & (1 << UInt32(HCI_UP)) != 0 }

    /// What the kernel says of adapter `id`; nil when there is no such adapter. Throws when the
    /// kernel has no Bluetooth at all.
    private static func information(_ id: Int32, _ library: LibBluetooth) throws(BLEError) -> hci_dev_info? {
        var info = hci_dev_info()
        errno = 0
        if library.devinfo(id, &info) == 0 { return info }
        let code = errno
        if code == EAFNOSUPPORT || code == EPROTONOSUPPORT { throw BLEError.from(errno: code, while: "reading adapter hci\(id)") }
        return nil
    }

    /// `7` for `hci7`; nil for anything else.
    private static func hciNumber(_ name: String) -> Int32? {
        guard name.hasPrefix("hci"), let number = Int32(name.dropFirst(3)), number >= 0 else { return nil }
        return number
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
