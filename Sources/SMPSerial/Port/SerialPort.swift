import Glibc

/// Hardware flow control on a serial line.
public enum SerialFlowControl: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No flow control (the usual setting for USB CDC ACM and most boards).
    case none
    /// RTS/CTS handshake lines.
    case rtsCts = "rtscts"

    /// The name, as in `flow=rtscts`.
    public var description: String { rawValue }
}

/// Opening and configuring a tty: raw mode, 8N1, a baud rate, optional RTS/CTS, exclusive access.
public enum SerialPort {
    /// The baud rates termios offers on Linux, and their `speed_t` constants.
    public static let standardBaudRates: [Int: speed_t] = [
        50: speed_t(B50), 75: speed_t(B75), 110: speed_t(B110), 134: speed_t(B134), 150: speed_t(B150),
        200: speed_t(B200), 300: speed_t(B300), 600: speed_t(B600), 1200: speed_t(B1200), 1800: speed_t(B1800),
        2400: speed_t(B2400), 4800: speed_t(B4800), 9600: speed_t(B9600), 19200: speed_t(B19200),
        38400: speed_t(B38400), 57600: speed_t(B57600), 115200: speed_t(B115200), 230400: speed_t(B230400),
        460800: speed_t(B460800), 500000: speed_t(B500000), 576000: speed_t(B576000), 921600: speed_t(B921600),
        1000000: speed_t(B1000000), 1152000: speed_t(B1152000), 1500000: speed_t(B1500000),
        2000000: speed_t(B2000000), 2500000: speed_t(B2500000), 3000000: speed_t(B3000000),
        3500000: speed_t(B3500000), 4000000: speed_t(B4000000),
    ]

    /// Opens `path` read-write without making it the controlling terminal, configures it
    /// (``configure(_:path:baudRate:flowControl:)``) and, when `exclusive`, locks out other opens (`TIOCEXCL`).
    public static func open(
        _ path: String, baudRate: Int = 115_200, flowControl: SerialFlowControl = .none, exclusive: Bool = true
    ) throws(SerialPortError) -> SerialLine {
        guard standardBaudRates[baudRate] != nil else { throw .unsupportedBaudRate(baudRate) }
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw openFailure(path: path, errno: errno) }
        do throws(SerialPortError) {
            guard isatty(fd) == 1 else { throw SerialPortError.notATerminal(path: path) }
            if exclusive && ioctl(fd, UInt(TIOCEXCL)) != 0 {
                throw systemError("ioctl(TIOCEXCL)", path: path)
            }
            try configure(fd, path: path, baudRate: baudRate, flowControl: flowControl)
        } catch {
            Glibc.close(fd)
            throw error
        }
        return try SerialLine(taking: fd, path: path, clearsExclusiveOnClose: exclusive)
    }

    /// Puts the tty `fd` in raw mode (`cfmakeraw`: no echo, no line editing, no translation),
    /// 8 data bits, no parity, 1 stop bit, receiver on, modem lines ignored, the baud rate (when
    /// given) and RTS/CTS as asked; then discards whatever was waiting in either direction.
    public static func configure(_ fd: Int32, path: String, baudRate: Int?, flowControl: SerialFlowControl) throws(SerialPortError) {
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else {
            throw errno == ENOTTY ? .notATerminal(path: path) : systemError("tcgetattr", path: path)
        }
        cfmakeraw(&settings)
        settings.c_cflag &= ~(tcflag_t(CSIZE) | tcflag_t(PARENB) | tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
        settings.c_cflag |= tcflag_t(CS8) | tcflag_t(CREAD) | tcflag_t(CLOCAL)
        if flowControl == .rtsCts { settings.c_cflag |= tcflag_t(CRTSCTS) }
        settings.c_iflag &= ~(tcflag_t(IXON) | tcflag_t(IXOFF) | tcflag_t(IXANY))
        // Non-canonical reads return as soon as one byte is there (EAGAIN when none, as the fd is non-blocking).
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        if let baudRate {
            guard let speed = standardBaudRates[baudRate] else { throw .unsupportedBaudRate(baudRate) }
            cfsetispeed(&settings, speed)
            cfsetospeed(&settings, speed)
        }
        guard tcsetattr(fd, TCSANOW, &settings) == 0 else { throw systemError("tcsetattr", path: path) }
        _ = tcflush(fd, TCIOFLUSH)
    }

    /// The error for a failed `open`, naming the owning group when access was denied.
    public static func openFailure(path: String, errno code: Int32) -> SerialPortError {
        switch code {
        case ENOENT, ENOTDIR, ENXIO, ENODEV:
            return .deviceMissing(path: path)
        case EACCES, EPERM:
            let owner = owner(of: path)
            return .permissionDenied(path: path, group: owner?.group, mode: owner?.mode)
        case EBUSY:
            return .busy(path: path)
        default:
            return systemError("open", path: path, errno: code)
        }
    }

    /// The group that owns `path` (from `stat` and `getgrgid`) and its mode as `ls -l` shows it.
    public static func owner(of path: String) -> (group: String?, mode: String)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        var groupName: String?
        var entry = Glibc.group()
        var result: UnsafeMutablePointer<Glibc.group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        if getgrgid_r(info.st_gid, &entry, &buffer, buffer.count, &result) == 0, let found = result {
            groupName = String(cString: found.pointee.gr_name)
        }
        return (groupName ?? "\(info.st_gid)", modeString(info.st_mode))
    }

    /// `crw-rw----` for a mode.
    static func modeString(_ mode: mode_t) -> String {
        let kind: Character
        switch mode & S_IFMT {
        case S_IFCHR: kind = "c"
        case S_IFDIR: kind = "d"
        case S_IFLNK: kind = "l"
        case S_IFBLK: kind = "b"
        default: kind = "-"
        }
        let letters: [Character] = ["r", "w", "x"]
        var text = String(kind)
        for shift in stride(from: 8, through: 0, by: -1) {
            text.append(mode & (1 << mode_t(shift)) != 0 ? letters[(8 - shift) % 3] : "-")
        }
        return text
    }

    /// A ``SerialPortError/system(call:path:errno:message:)`` for the current (or given) `errno`.
    static func systemError(_ call: String, path: String, errno code: Int32 = errno) -> SerialPortError {
        .system(call: call, path: path, errno: code, message: String(cString: strerror(code)))
    }
}
