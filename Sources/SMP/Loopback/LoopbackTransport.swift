import Synchronization

/// An in-memory transport: what the client sends arrives at a `LoopbackDevice` end, and what
/// that end sends back arrives as the client's events. For tests and the in-process simulator.
public final class LoopbackTransport: SMPTransport {
    /// The largest packet the loopback carries now (the device end may change it, as a new MTU would).
    public var maximumPacketSize: Int { link.state.withLock { $0.maximumPacketSize } }
    /// Received packets and link changes.
    public let events: SMPTransportEvents
    /// The device end of this loopback.
    public let device: LoopbackDevice
    private let link: LoopbackLink

    /// Makes a connected loopback with its device end.
    public init(maximumPacketSize: Int = 2048) {
        let (events, eventSink) = SMPTransportEvents.makeStream()
        let (requests, requestSink) = AsyncStream.makeStream(of: [UInt8].self)
        let link = LoopbackLink(eventSink: eventSink, requestSink: requestSink, maximumPacketSize: maximumPacketSize)
        self.events = events
        self.link = link
        self.device = LoopbackDevice(requests: requests, link: link)
    }

    /// Reconnects after the device end disconnected, unless it refuses connections.
    public func connect() async throws(SMPTransportError) {
        try link.connect()
    }

    /// Hands the packet to the device end.
    public func send(_ packet: [UInt8]) async throws(SMPTransportError) {
        try link.deliverRequest(packet)
    }

    /// Closes both ends.
    public func close() async {
        link.close()
    }
}

/// The device end of a `LoopbackTransport`.
public final class LoopbackDevice: Sendable {
    /// Packets the client sent, in order.
    public let requests: AsyncStream<[UInt8]>
    private let link: LoopbackLink

    fileprivate init(requests: AsyncStream<[UInt8]>, link: LoopbackLink) {
        self.requests = requests
        self.link = link
    }

    /// Sends a packet to the client (dropped while disconnected, as on a real link).
    public func respond(_ packet: [UInt8]) {
        link.deliverResponse(packet)
    }

    /// Drops the link: the client sees `.disconnected` and sends fail until it reconnects.
    public func disconnect(reason: String = "device disconnected") {
        link.disconnect(reason: reason)
    }

    /// Whether a reconnect attempt succeeds (true by default).
    public var acceptsConnections: Bool {
        get { link.state.withLock { $0.accepts } }
        set { link.state.withLock { $0.accepts = newValue } }
    }

    /// Whether the link is up.
    public var isConnected: Bool { link.state.withLock { $0.connected } }

    /// The largest packet the link carries; change it while the link is down to model a link
    /// that comes back with another MTU.
    public var maximumPacketSize: Int {
        get { link.state.withLock { $0.maximumPacketSize } }
        set { link.state.withLock { $0.maximumPacketSize = newValue } }
    }
}

/// State shared by both ends.
private final class LoopbackLink: Sendable {
    struct State {
        var connected = true
        var accepts = true
        var closed = false
        var maximumPacketSize: Int
    }

    let state: Mutex<State>
    let eventSink: SMPTransportEvents.Continuation
    let requestSink: AsyncStream<[UInt8]>.Continuation

    init(eventSink: SMPTransportEvents.Continuation, requestSink: AsyncStream<[UInt8]>.Continuation, maximumPacketSize: Int) {
        self.eventSink = eventSink
        self.requestSink = requestSink
        self.state = Mutex(State(maximumPacketSize: maximumPacketSize))
    }

    func connect() throws(SMPTransportError) {
        let result: Result<Bool, SMPTransportError> = state.withLock { s in
            if s.closed { return .failure(.closed) }
            if s.connected { return .success(false) }
            guard s.accepts else { return .failure(.unreachable("the loopback device refuses connections")) }
            s.connected = true
            return .success(true)
        }
        if try result.get() { eventSink.yield(.connected) }
    }

    func deliverRequest(_ packet: [UInt8]) throws(SMPTransportError) {
        let result: Result<Void, SMPTransportError> = state.withLock { s in
            if s.closed { return .failure(.closed) }
            if !s.connected { return .failure(.notConnected) }
            guard packet.count <= s.maximumPacketSize else {
                return .failure(.packetTooLarge(size: packet.count, limit: s.maximumPacketSize))
            }
            requestSink.yield(packet)
            return .success(())
        }
        try result.get()
    }

    func deliverResponse(_ packet: [UInt8]) {
        state.withLock { s in
            if s.connected && !s.closed { eventSink.yield(.received(packet)) }
        }
    }

    func disconnect(reason: String) {
        let was = state.withLock { s in
            defer { s.connected = false }
            return s.connected && !s.closed
        }
        if was { eventSink.yield(.disconnected(reason: reason)) }
    }

    func close() {
        state.withLock { $0.closed = true; $0.connected = false }
        eventSink.finish()
        requestSink.finish()
    }
}
