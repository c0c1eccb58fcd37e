import Glibc
import Logging
import POSIXIO

extension HCITransports {
    /// The baud rates a tty can be set to through termios.
    public static let baudRates: [Int] = [
        9_600, 19_200, 38_400, 57_600, 115_200, 230_400, 460_800, 500_000, 576_000, 921_600, 1_000_000, 1_152_000,
        1_500_000, 2_000_000, 2_500_000, 3_000_000, 3_500_000, 4_000_000,
    ]

    /// Opens a UART controller (e.g. Nordic's `hci_uart` firmware): raw 8N1 at `baudRate`, with
    /// RTS/CTS hardware flow control unless `flowControl` is false.
    public static func serial(
        path: String, baudRate: Int = 1_000_000, flowControl: Bool = true, logger: Logger = Logger(label: "hci")
    ) async throws(HCITransportError) -> any HCITransport {
        guard let speed = speed(for: baudRate) else {
            throw .invalidConfiguration(
                "\(baudRate) baud is not a rate the serial port can be set to; use one of \(baudRates.map(String.init).joined(separator: ", "))")
        }
        let outcome: Result<Int32, HCITransportError> = await DetachedThread.run(name: "hci-serial-open") {
            open(path: path, speed: speed, flowControl: flowControl)
        }
        let descriptor = try outcome.get()
        do {
            return try DescriptorChannel(
                adopting: descriptor, description: "serial:\(path)@\(baudRate)", maximumACLLength: 65_535, logger: logger)
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    private static func open(path: String, speed: speed_t, flowControl: Bool) -> Result<Int32, HCITransportError> {
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ENOENT: return .failure(.unreachable("\(path) does not exist: is the controller plugged in?"))
            case EACCES, EPERM:
                return .failure(.permissionDenied("permission denied opening \(path): add yourself to the dialout group or run as root"))
            case EBUSY: return .failure(.unreachable("\(path) is in use by another program"))
            default: return .failure(.unreachable("cannot open \(path): \(errnoText(code))"))
            }
        }
        var options = termios()
        guard tcgetattr(fd, &options) == 0 else {
            let text = errnoText()
            Glibc.close(fd)
            return .failure(.unreachable("\(path) is not a serial port: \(text)"))
        }
        cfmakeraw(&options)
        options.c_cflag |= tcflag_t(CLOCAL | CREAD)
        if flowControl { options.c_cflag |= tcflag_t(CRTSCTS) } else { options.c_cflag &= ~tcflag_t(CRTSCTS) }
        options.c_cflag &= ~tcflag_t(CSTOPB | PARENB)
        withUnsafeMutableBytes(of: &options.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard cfsetispeed(&options, speed) == 0, cfsetospeed(&options, speed) == 0, tcsetattr(fd, TCSANOW, &options) == 0 else {
            let text = errnoText()
            Glibc.close(fd)
            return .failure(.invalidConfiguration("cannot configure \(path): \(text)"))
        }
        _ = tcflush(fd, TCIOFLUSH)
        return .success(fd)
    }

    /// The termios speed constant for a baud rate.
    static func speed(for baudRate: Int) -> speed_t? {
        let table: [Int: Int32] = [
            9_600: B9600, 19_200: B19200, 38_400: B38400, 57_600: B57600, 115_200: B115200, 230_400: B230400,
            460_800: B460800, 500_000: B500000, 576_000: B576000, 921_600: B921600, 1_000_000: B1000000,
            1_152_000: B1152000, 1_500_000: B1500000, 2_000_000: B2000000, 2_500_000: B2500000, 3_000_000: B3000000,
            3_500_000: B3500000, 4_000_000: B4000000,
        ]
        return table[baudRate].map { speed_t($0) }
    }
}
