import Glibc

/// A system call that failed, and the `errno` it left: what the layers above turn into messages.
public struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call, e.g. `read`, `send`, `poll`, `connect`, `pthread_create`.
    public let call: String
    /// The `errno` value, e.g. `ECONNRESET`.
    public let errno: Int32

    /// Names a failed call and its `errno`.
    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// The system's words for the `errno`, e.g. `Connection reset by peer`.
    public var reason: String { String(cString: strerror(errno)) }

    /// E.g. `read failed: Connection reset by peer (errno 104)`.
    public var description: String { "\(call) failed: \(errnoText(errno))" }
}

/// `strerror` of an `errno` value and the number, e.g. "Resource temporarily unavailable (errno 11)".
public func errnoText(_ code: Int32 = errno) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}
