/// Why a ``PolledDescriptor``'s I/O ended: its owner closed it, the peer closed its end, or a
/// system call failed (with the `errno`). Each layer above words it for its users.
public enum DescriptorEnd: Error, Sendable, Hashable, CustomStringConvertible {
    /// The owner closed it (``PolledDescriptor/close()``).
    case closed
    /// The peer closed its end: a read found the end of the stream.
    case peerClosed
    /// A system call failed: `read`, `recv`, `write`, `send`, `poll`, `connect`, or `pthread_create`
    /// when no thread could be started.
    case failed(SystemCallError)

    /// E.g. `the peer closed its end`, `recv failed: Connection reset by peer (errno 104)`.
    public var description: String {
        switch self {
        case .closed: return "closed"
        case .peerClosed: return "the peer closed its end"
        case .failed(let error): return error.description
        }
    }

    /// The `errno` of a failed call; nil for a close.
    public var errno: Int32? {
        if case .failed(let error) = self { return error.errno }
        return nil
    }
}
