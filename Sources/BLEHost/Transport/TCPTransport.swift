import Glibc
import Logging
import POSIXIO

extension HCITransports {
    /// Connects to a controller that serves H4 over TCP (bumble's `tcp-server:` virtual
    /// controllers, an emulator), waiting at most `timeout` for the connection.
    public static func tcp(
        host: String, port: Int, timeout: Duration = .seconds(5), logger: Logger = Logger(label: "hci")
    ) async throws(HCITransportError) -> any HCITransport {
        let name = host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        guard (1...65_535).contains(port) else { throw .invalidConfiguration("\(name): the port must be 1 to 65535") }
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let outcome: Result<Int32, HCITransportError> = await DetachedThread.run(name: "hci-connect") {
            connect(host: host, port: port, timeoutMilliseconds: milliseconds, name: name)
        }
        let descriptor = try outcome.get()
        do {
            return try DescriptorChannel(adopting: descriptor, description: name, maximumACLLength: 65_535, logger: logger)
        } catch {
            Glibc.close(descriptor)
            throw error
        }
    }

    /// Resolves `host` and connects to the first address that answers within the time limit.
    private static func connect(host: String, port: Int, timeoutMilliseconds: Int32, name: String) -> Result<Int32, HCITransportError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(.unreachable("cannot resolve \(host): \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else {
                lastError = errnoText()
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return .success(fd) }
            guard errno == EINPROGRESS else {
                lastError = errnoText()
                Glibc.close(fd)
                continue
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&pfd, 1, timeoutMilliseconds)
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if ready == 1, getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 { return .success(fd) }
            lastError = ready == 0 ? "no answer within \(timeoutMilliseconds) ms" : errnoText(error != 0 ? error : errno)
            Glibc.close(fd)
        }
        return .failure(.unreachable("cannot connect to the HCI controller at \(name): \(lastError); is the controller (e.g. bumble's) running?"))
    }
}

/// Opens the links to HCI controllers: TCP, a UART, or the Linux HCI user channel.
public enum HCITransports {}
