import Glibc
import POSIXIO

extension BLEError {
    /// Maps an `errno` from a BlueZ socket or libbluetooth call to a message a user can act on.
    static func from(errno code: Int32, while doing: String) -> BLEError {
        let system = errnoText(code)
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            return .bluetoothUnavailable(
                "Bluetooth is not available: this kernel has no Bluetooth support (\(doing): address family not supported)")
        case ENODEV:
            return .noAdapter("no Bluetooth adapter (\(doing): \(system)); check `hciconfig` or `btmgmt info`")
        case EPERM, EACCES:
            return .permissionDenied(
                "permission denied (\(doing)): raw Bluetooth access needs CAP_NET_RAW and CAP_NET_ADMIN; run as root or grant them with setcap")
        case EHOSTDOWN, EHOSTUNREACH:
            return .hostDown("the device does not answer (\(doing): host is down): is it advertising, in range, and is the adapter up?")
        case ETIMEDOUT:
            return .timeout("timed out (\(doing)): the device did not answer")
        case ECONNREFUSED, ECONNRESET, ECONNABORTED:
            return .refused("the device refused the connection (\(doing): \(system))")
        case EBUSY:
            return .io("the adapter is busy (\(doing): \(system)); another connection or scan may be running")
        default:
            return .io("\(doing) failed: \(system)")
        }
    }
}
