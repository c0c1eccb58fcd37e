/// A channel that carries ATT PDUs: one read is exactly one PDU and one write is exactly one PDU.
///
/// A BlueZ L2CAP LE socket on fixed channel 4 (`SOCK_SEQPACKET`), a `socketpair(AF_UNIX,
/// SOCK_SEQPACKET)` in tests, or the ATT channel of our own HCI host. Never put a bearer behind
/// anything that may coalesce or split writes (a stream channel, `writev` batching): PDU
/// boundaries are the protocol's only framing.
///
/// One bearer is one connection: after it closes, a new connection makes a new bearer.
public protocol ATTBearer: Sendable {
    /// PDUs from the peer in arrival order, then `.closed` once; exactly one consumer.
    var inbound: AsyncStream<ATTBearerEvent> { get }
    /// The largest PDU the bearer itself carries (its L2CAP MTU), independent of the ATT MTU.
    var maximumPDUSize: Int { get }
    /// Sends one whole PDU. Waits while the bearer cannot take it (the socket would block, the
    /// controller has no buffers); never drops a PDU. Sends are serialised in call order.
    func send(_ pdu: [UInt8]) async throws(ATTBearerError)
    /// Closes the bearer; `inbound` then ends with `.closed`.
    func close() async
}

/// What an ``ATTBearer`` delivers.
public enum ATTBearerEvent: Sendable, Equatable {
    /// One whole PDU from the peer.
    case pdu([UInt8])
    /// The connection ended (the peer disconnected, the link was lost, or `close()` was called).
    case closed(reason: String)
}

/// Why an ``ATTBearer`` could not send.
public enum ATTBearerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bearer is closed or its connection ended.
    case closed(reason: String)
    /// The PDU is larger than the bearer carries.
    case pduTooLarge(size: Int, limit: Int)
    /// An operating-system or controller error.
    case io(String)

    /// A one-line message.
    public var description: String {
        switch self {
        case .closed(let reason): return "the ATT bearer is closed: \(reason)"
        case .pduTooLarge(let size, let limit): return "ATT PDU of \(size) bytes exceeds the bearer's \(limit)-byte limit"
        case .io(let what): return what
        }
    }
}
