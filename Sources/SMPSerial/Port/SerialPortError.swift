/// Why a serial device could not be opened, configured, read or written.
public enum SerialPortError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing exists at the path (not plugged in, or a wrong name).
    case deviceMissing(path: String)
    /// The device exists but this user may not open it; `group` owns it (e.g. `dialout`) when known.
    case permissionDenied(path: String, group: String?, mode: String?)
    /// Another program holds the device open exclusively.
    case busy(path: String)
    /// The path is not a terminal (tty or pty).
    case notATerminal(path: String)
    /// The baud rate is not one the termios interface offers.
    case unsupportedBaudRate(Int)
    /// The device went away (unplugged, or the other end of a pty closed).
    case hangup(path: String)
    /// The descriptor was closed while waiting.
    case closed
    /// Any other system error, with the call that failed and `errno`'s text.
    case system(call: String, path: String, errno: Int32, message: String)

    /// A one-line message a user can act on.
    public var description: String {
        switch self {
        case .deviceMissing(let path):
            return "no serial device at \(path): is it plugged in, and is the name right? (ls /dev/ttyACM* /dev/ttyUSB*)"
        case .permissionDenied(let path, let group, let mode):
            let owner = group.map { " (group '\($0)'\(mode.map { ", mode \($0)" } ?? ""))" } ?? ""
            let fix = group.map { "; add yourself to that group (sudo usermod -aG \($0) $USER) and log in again" } ?? ""
            return "permission denied opening \(path)\(owner)\(fix)"
        case .busy(let path):
            return "\(path) is in use by another program (opened exclusively); close it and try again"
        case .notATerminal(let path):
            return "\(path) is not a serial device (not a tty)"
        case .unsupportedBaudRate(let rate):
            return "\(rate) is not a standard baud rate (e.g. 9600, 115200, 230400, 460800, 921600, 1000000)"
        case .hangup(let path):
            return "the serial device \(path) went away (unplugged?)"
        case .closed:
            return "the serial port is closed"
        case .system(let call, let path, _, let message):
            return "\(call) on \(path) failed: \(message)"
        }
    }
}
