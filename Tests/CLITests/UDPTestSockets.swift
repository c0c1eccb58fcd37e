import Glibc
import SMPTestSupport

/// A UDP port on 127.0.0.1 that nothing listens on (bound once to learn a free number, then closed).
enum ClosedUDPPort {
    static func make() throws -> Int {
        let socket = try SilentUDPSocket()
        return socket.port
    }
}

/// A UDP socket on 127.0.0.1 that takes datagrams and never answers; closed when released.
final class SilentUDPSocket: Sendable {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw ProcessError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            throw ProcessError("bind: \(errno)")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}
