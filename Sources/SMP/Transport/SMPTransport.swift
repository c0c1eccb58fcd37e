/// Something that moves whole SMP packets to and from one device.
///
/// A transport delivers what it receives, and changes of its link, as `events`; exactly one
/// consumer (the `SMPClient` using it) iterates them.
public protocol SMPTransport: Sendable {
    /// The largest SMP packet (header + payload) the transport carries in one unit.
    var maximumPacketSize: Int { get async }
    /// Received packets and link changes, in arrival order, for the transport's whole life.
    var events: AsyncStream<SMPTransportEvent> { get }
    /// Brings the link up; does nothing when it is up. Called again after a disconnect to reconnect.
    func connect() async throws(SMPTransportError)
    /// Sends one whole SMP packet.
    func send(_ packet: [UInt8]) async throws(SMPTransportError)
    /// Takes the link down for good and finishes `events`.
    func close() async
}

/// What a transport reports.
public enum SMPTransportEvent: Sendable, Equatable {
    /// Bytes of one SMP packet from the device.
    case received([UInt8])
    /// The link went down; requests in flight will not be answered.
    case disconnected(reason: String)
    /// The link came (back) up.
    case connected
}

/// Why a transport could not do what was asked.
public enum SMPTransportError: Error, Hashable, Sendable {
    /// The link is down; `connect()` may bring it back.
    case notConnected
    /// The link went down while in use.
    case disconnected(reason: String)
    /// The packet is larger than the transport carries.
    case packetTooLarge(size: Int, limit: Int)
    /// The device's address could not be resolved or reached.
    case unreachable(String)
    /// The transport was closed.
    case closed
    /// An operating-system or library error.
    case io(String)
}

extension SMPTransportError: CustomStringConvertible {
    /// A one-line message.
    public var description: String {
        switch self {
        case .notConnected: return "not connected to the device"
        case .disconnected(let reason): return "disconnected from the device: \(reason)"
        case .packetTooLarge(let size, let limit): return "packet of \(size) bytes exceeds the transport's \(limit)-byte limit"
        case .unreachable(let what): return "cannot reach the device: \(what)"
        case .closed: return "the transport is closed"
        case .io(let what): return what
        }
    }
}
