import CBlueZ
import Glibc
import Logging
import POSIXIO

extension HCITransports {
    /// Opens adapter `index` (`hci0` is 0) through the Linux HCI user channel: this host then owns
    /// the controller and the kernel's Bluetooth stack stays out. The adapter must be down
    /// (`btmgmt --index N power off`, or `hciconfig hciN down`); needs CAP_NET_ADMIN.
    public static func userChannel(index: Int, logger: Logger = Logger(label: "hci")) async throws(HCITransportError) -> any HCITransport {
        guard (0...0xFFFE).contains(index) else { throw .invalidConfiguration("hci\(index) is not an adapter index") }
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard fd >= 0 else {
            let code = errno
            if code == EAFNOSUPPORT || code == EPROTONOSUPPORT {
                throw .bluetoothUnavailable(
                    "Bluetooth is not available in this kernel (socket(AF_BLUETOOTH) failed: address family not supported); "
                        + "use an HCI controller over TCP (--hci tcp:HOST:PORT) or a UART (--hci serial:PATH)")
            }
            if code == EPERM || code == EACCES {
                throw .permissionDenied("permission denied opening an HCI socket: the user channel needs CAP_NET_ADMIN; run as root")
            }
            throw .io("cannot open an HCI socket: \(errnoText(code))")
        }
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = UInt16(index)
        address.hci_channel = UInt16(HCI_CHANNEL_USER)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            switch code {
            case EBUSY, EALREADY:
                throw .adapterBusy(
                    "hci\(index) is up and in use by the kernel's Bluetooth stack: the HCI user channel needs the adapter down "
                        + "(run `btmgmt --index \(index) power off` or `hciconfig hci\(index) down`, and stop bluetoothd if it powers it back on)")
            case ENODEV:
                throw .noAdapter("there is no Bluetooth adapter hci\(index); list them with `btmgmt info` or `hciconfig`")
            case EPERM, EACCES:
                throw .permissionDenied("permission denied binding hci\(index)'s user channel: it needs CAP_NET_ADMIN; run as root")
            default:
                throw .io("cannot open hci\(index)'s user channel: \(errnoText(code))")
            }
        }
        do {
            return try DescriptorChannel(adopting: fd, description: "user:\(index)", maximumACLLength: 65_535, logger: logger)
        } catch {
            Glibc.close(fd)
            throw error
        }
    }
}
