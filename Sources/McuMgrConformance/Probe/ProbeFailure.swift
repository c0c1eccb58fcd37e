import SMP

/// Why a packet could not be sent.
enum ProbeFailure: Error, Sendable, CustomStringConvertible {
    /// The transport does not carry a packet this large.
    case tooLarge(size: Int, limit: Int)
    /// The link is down and did not come back, or the transport is closed.
    case link(String)

    var description: String {
        switch self {
        case .tooLarge(let size, let limit): return "a packet of \(size) bytes is more than the transport carries (\(limit))"
        case .link(let why): return "the link failed: \(why)"
        }
    }
}
