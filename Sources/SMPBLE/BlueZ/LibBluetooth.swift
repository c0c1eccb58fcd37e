import CBlueZ
import Glibc

/// The few libbluetooth functions the kernel-socket path calls (adapter lookup and LE scanning),
/// opened at run time with `dlopen` rather than linked: a program that only speaks UDP or serial
/// then starts on a machine without `libbluetooth.so.3` (Debian's `libbluetooth3`), and a
/// Bluetooth command there fails with ``BLEError/bluetoothUnavailable(_:)`` saying which library
/// is missing. The headers (`libbluetooth-dev`) are still needed to build.
struct LibBluetooth: @unchecked Sendable {
    /// The shared object opened: libbluetooth's ABI 3, as every BlueZ 5 system ships it.
    static let soname = "libbluetooth.so.3"

    /// `int hci_devid(const char *str)`.
    let devid: @convention(c) (UnsafePointer<CChar>?) -> Int32
    /// `int hci_get_route(bdaddr_t *bdaddr)`.
    let getRoute: @convention(c) (UnsafeMutablePointer<bdaddr_t>?) -> Int32
    /// `int hci_devinfo(int dev_id, struct hci_dev_info *di)`.
    let devinfo: @convention(c) (Int32, UnsafeMutablePointer<hci_dev_info>?) -> Int32
    /// `int hci_open_dev(int dev_id)`.
    let openDev: @convention(c) (Int32) -> Int32
    /// `int hci_close_dev(int dd)`.
    let closeDev: @convention(c) (Int32) -> Int32
    /// `int hci_le_set_scan_parameters(int dd, uint8_t type, uint16_t interval, uint16_t window, uint8_t own_type, uint8_t filter, int to)`.
    let setScanParameters: @convention(c) (Int32, UInt8, UInt16, UInt16, UInt8, UInt8, Int32) -> Int32
    /// `int hci_le_set_scan_enable(int dd, uint8_t enable, uint8_t filter_dup, int to)`.
    let setScanEnable: @convention(c) (Int32, UInt8, UInt8, Int32) -> Int32

    /// The library, opened once on first use (or why it could not be).
    private static let loaded: Result<LibBluetooth, BLEError> = load()

    /// The library's functions; throws ``BLEError/bluetoothUnavailable(_:)`` when it is not installed.
    static func functions() throws(BLEError) -> LibBluetooth {
        try loaded.get()
    }

    private static func load() -> Result<LibBluetooth, BLEError> {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(.bluetoothUnavailable(
                "Bluetooth through the kernel needs \(soname) (Debian: apt install libbluetooth3): \(reason)"))
        }
        func symbol<T>(_ name: String, as type: T.Type) throws(BLEError) -> T {
            guard let pointer = dlsym(handle, name) else {
                throw .bluetoothUnavailable("\(soname) has no \(name); is it BlueZ's libbluetooth?")
            }
            return unsafeBitCast(pointer, to: type)
        }
        do throws(BLEError) {
            return .success(LibBluetooth(
                devid: try symbol("hci_devid", as: (@convention(c) (UnsafePointer<CChar>?) -> Int32).self),
                getRoute: try symbol("hci_get_route", as: (@convention(c) (UnsafeMutablePointer<bdaddr_t>?) -> Int32).self),
                devinfo: try symbol("hci_devinfo", as: (@convention(c) (Int32, UnsafeMutablePointer<hci_dev_info>?) -> Int32).self),
                openDev: try symbol("hci_open_dev", as: (@convention(c) (Int32) -> Int32).self),
                closeDev: try symbol("hci_close_dev", as: (@convention(c) (Int32) -> Int32).self),
                setScanParameters: try symbol(
                    "hci_le_set_scan_parameters", as: (@convention(c) (Int32, UInt8, UInt16, UInt16, UInt8, UInt8, Int32) -> Int32).self),
                setScanEnable: try symbol("hci_le_set_scan_enable", as: (@convention(c) (Int32, UInt8, UInt8, Int32) -> Int32).self)))
        } catch {
            dlclose(handle)
            return .failure(error)
        }
    }
}
