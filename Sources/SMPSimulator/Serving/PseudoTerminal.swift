import CPseudoTerminal
import Glibc
import SMPSerial

/// A pseudo-terminal pair: the master the simulator serves, and the slave path (`/dev/pts/N`)
/// a client opens as if it were a USB serial port.
///
/// The simulator keeps its own descriptor of the slave, in raw mode, so that the pty survives
/// clients coming and going (the master would see EIO when no slave is open) and a client never
/// sees echo or line editing, whatever order the two ends are set up in.
public struct PseudoTerminal: Sendable {
    /// The master end's descriptor (owned by whoever takes it, e.g. a `SerialLine`).
    public let master: Int32
    /// The slave end's descriptor the simulator holds open; never read.
    public let heldSlave: Int32
    /// The slave's path, for clients.
    public let slavePath: String

    /// Creates a pty (`posix_openpt`, `grantpt`, `unlockpt`, `ptsname_r`) with both ends in raw mode.
    public static func open() throws(SerialPortError) -> PseudoTerminal {
        let master = cpty_posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw SerialPortError.system(call: "posix_openpt", path: "/dev/ptmx", errno: errno, message: String(cString: strerror(errno))) }
        func fail(_ call: String) -> SerialPortError {
            let code = errno
            Glibc.close(master)
            return .system(call: call, path: "/dev/ptmx", errno: code, message: String(cString: strerror(code)))
        }
        guard cpty_grantpt(master) == 0 else { throw fail("grantpt") }
        guard cpty_unlockpt(master) == 0 else { throw fail("unlockpt") }
        var name = [CChar](repeating: 0, count: 128)
        guard cpty_ptsname_r(master, &name, name.count) == 0 else { throw fail("ptsname_r") }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave = Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else { throw fail("open \(path)") }
        do {
            try SerialPort.configure(slave, path: path, baudRate: nil, flowControl: .none)
            try SerialPort.configure(master, path: "/dev/ptmx", baudRate: nil, flowControl: .none)
        } catch {
            Glibc.close(slave)
            Glibc.close(master)
            throw error
        }
        return PseudoTerminal(master: master, heldSlave: slave, slavePath: path)
    }
}
