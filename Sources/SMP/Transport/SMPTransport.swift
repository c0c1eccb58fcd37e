/// Something that moves whole SMP packets to and from one device: a UDP socket, a GATT
/// characteristic, a serial line, an in-memory link.
///
/// The contract every transport keeps, datagram or stream alike:
/// - `send` is serialised and atomic: the bytes of one SMP packet reach the link together and are
///   never interleaved with another packet's, even when several tasks send at once (the session
///   resends from timers while an upload sends new chunks). A stream transport that splits a
///   packet into link units (BLE writes, serial frames) finishes one packet's units before the next.
/// - What arrives is delivered as whole SMP packets in `events`, in arrival order; a stream
///   transport reassembles them (``SMPPacketAssembler``) before delivering.
/// - `maximumPacketSize` is what one SMP packet may be on this transport (the datagram, or the
///   device's reassembly buffer when the link fragments); `linkUnit` is the link's own unit (UDP
///   datagram, ATT MTU − 3, serial frame payload). They are equal where the link does not fragment.
///   Both may change when the link comes back (a new ATT MTU); the session reads them again then.
/// - Exactly one consumer (the `SMPClient` using the transport) iterates `events`.
public protocol SMPTransport: Sendable {
    /// The largest SMP packet (header + payload) the transport sends now.
    var maximumPacketSize: Int { get async }
    /// The link's own unit in bytes (UDP datagram, ATT MTU − 3, serial frame payload); a packet
    /// larger than this travels in several units.
    var linkUnit: Int { get async }
    /// Received packets and link changes, in arrival order, for the transport's whole life.
    var events: SMPTransportEvents { get }
    /// Brings the link up; does nothing when it is up. Called again after a disconnect to reconnect.
    func connect() async throws(SMPTransportError)
    /// Sends one whole SMP packet, atomically with respect to other sends.
    func send(_ packet: [UInt8]) async throws(SMPTransportError)
    /// Takes the link down for good and finishes `events`.
    func close() async
    /// Tells the transport the device's reassembly buffer (`buf_size`), or `nil` when unknown: a
    /// transport that fragments packets into link units may then carry packets up to that size.
    func setDeviceBufferSize(_ size: Int?) async
}

extension SMPTransport {
    /// A transport whose packet size does not depend on the device ignores its buffer size.
    public func setDeviceBufferSize(_ size: Int?) async {}

    /// A link that does not fragment: its unit is the packet.
    public var linkUnit: Int {
        get async { await maximumPacketSize }
    }
}

/// What a transport reports.
public enum SMPTransportEvent: Sendable, Equatable {
    /// Bytes of one SMP packet from the device.
    case received([UInt8])
    /// The link went down; requests in flight will not be answered.
    case disconnected(reason: String)
    /// The link came (back) up; its packet sizes may have changed.
    case connected
    /// The network refused a packet at once (ICMP port or host unreachable: nothing listens at
    /// the device's address, or no route to it); the link itself stays up. A session that has
    /// never heard from the device ends its requests in flight with this; one that has treats it
    /// as a lost packet (a device rebooting refuses until its stack is back).
    case unreachable(reason: String)
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
