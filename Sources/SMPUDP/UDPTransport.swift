import Glibc
import NIOCore
import NIOPosix
import SMP
import Synchronization

/// SMP over UDP (IPv4 or IPv6) on SwiftNIO: one SMP packet per datagram, as Zephyr's `smp_udp` expects.
///
/// Datagrams larger than `maximumPacketSize` are refused before sending. A device whose SMP buffer
/// is smaller than a datagram may silently corrupt it, so `SMPClient` also bounds requests by the
/// device's `buf_size` once it is known.
///
/// The socket lives on one event loop of `eventLoopGroup`. Once SwiftNIO runs Swift concurrency
/// on that loop (``runConcurrencyOnOneEventLoopThread()``), the transport offers it as its
/// ``boundExecutor``: the session then handles each datagram inside the read that received it.
///
/// The socket is connected to the device's address, so that the kernel passes on ICMP errors: a
/// datagram refused at once (nothing listens on the port, no route to the host) is reported as
/// `SMPTransportEvent.unreachable(reason:)` instead of waiting out every timeout (where the
/// address cannot be connected to, e.g. a broadcast address, the socket stays unconnected).
///
/// UDP has no link to lose, but the socket can be: SwiftNIO closes it on a send error it cannot
/// pass over (no route to the device's network — its USB or Wi-Fi interface went away while it
/// rebooted — or a send the host refuses). The transport then reports
/// `SMPTransportEvent.disconnected(reason:)` and `connect()` opens a new socket.
public final class UDPTransport: SMPExecutorBoundTransport {
    /// Zephyr's default SMP UDP port.
    public static let defaultPort = 1337
    /// A datagram that fits a 1500-byte Ethernet MTU after IPv4 and UDP headers.
    public static let defaultMaximumPacketSize = 1472

    /// The device's host name or address.
    public let host: String
    /// The device's UDP port.
    public let port: Int
    /// The largest datagram this transport sends.
    public let maximumPacketSize: Int
    /// Datagrams from the device and link changes.
    public let events: SMPTransportEvents

    /// The event loop this transport's session runs on, when Swift concurrency runs on it.
    public let boundExecutor: (any SerialExecutor)?

    private let eventSink: SMPTransportEvents.Continuation
    private let eventLoop: any EventLoop
    private let resolver: UDPHostResolver
    private let state = Mutex(State())

    private struct State {
        var channel: (any Channel)?
        var remote: SocketAddress?
        var connected = false
        var closed = false
    }

    /// Makes a transport to `host:port`; the socket opens on `connect()`, on one loop of
    /// `eventLoopGroup`. `sessionOnEventLoop` says whether the session runs on that loop
    /// (``boundExecutor``); by default it does when Swift concurrency runs there too
    /// (``runConcurrencyOnOneEventLoopThread()`` and the singleton group).
    public convenience init(
        host: String, port: Int = UDPTransport.defaultPort,
        maximumPacketSize: Int = UDPTransport.defaultMaximumPacketSize,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        sessionOnEventLoop: Bool? = nil
    ) {
        self.init(
            host: host, port: port, maximumPacketSize: maximumPacketSize, eventLoopGroup: eventLoopGroup,
            sessionOnEventLoop: sessionOnEventLoop, resolver: .system)
    }

    /// Makes a transport that resolves its host with `resolver`.
    init(
        host: String, port: Int, maximumPacketSize: Int, eventLoopGroup: any EventLoopGroup, sessionOnEventLoop: Bool?,
        resolver: UDPHostResolver
    ) {
        self.resolver = resolver
        self.host = host
        self.port = port
        self.maximumPacketSize = max(SMPHeader.size + 1, min(maximumPacketSize, 65_507))
        self.eventLoop = eventLoopGroup.next()
        let concurrencyRunsHere = Self.concurrencyRunsOnSingletonLoop.load(ordering: .relaxed)
            && (eventLoopGroup as AnyObject) === MultiThreadedEventLoopGroup.singleton
        if sessionOnEventLoop ?? concurrencyRunsHere {
            boundExecutor = eventLoop.executor
        } else {
            boundExecutor = nil
        }
        (events, eventSink) = SMPTransportEvents.makeStream()
    }

    /// The largest datagram this transport sends (it does not change).
    public var currentMaximumPacketSize: Int { maximumPacketSize }

    /// Resolves the device's address (a host name on SwiftNIO's thread pool, not on the event loop) and
    /// opens a socket bound to an ephemeral local port, unless the one open is still in use.
    public func connect() async throws(SMPTransportError) {
        let (isOpen, isClosed) = state.withLock { ($0.channel?.isActive ?? false, $0.closed) }
        if isClosed { throw .closed }
        if isOpen { return }
        let remote: SocketAddress
        do {
            remote = try await resolver.address(of: host, port: port)
        } catch {
            throw .unreachable("cannot resolve \(host):\(port): \(error)")
        }
        let sink = eventSink
        let closed: @Sendable (any Channel, String) -> Void = { [weak self] channel, reason in
            self?.socketClosed(channel, reason: reason)
        }
        let endpoint = "\(host):\(port)"
        let loop = eventLoop
        /// A socket bound to an ephemeral port, with the receiver in its pipeline.
        func open() async throws(SMPTransportError) -> any Channel {
            do {
                // The wildcard address as a literal: `bind(host:port:)` would look it up with
                // getaddrinfo, on the loop (a netlink query and an nscd probe each time).
                let local = try SocketAddress(ipAddress: remote.protocol == .inet6 ? "::" : "0.0.0.0", port: 0)
                // No SO_REUSEADDR: on Linux, two UDP sockets that both set it can be given the same
                // ephemeral port, and then one receives the other's answers (seen as sessions in
                // parallel tests timing out and resending a write the device had already taken).
                return try await DatagramBootstrap(group: loop)
                    // One datagram per wake-up: the answer goes to the session at once, instead of
                    // after another read that finds the socket empty (more answers waiting are read
                    // on the loop's next turn).
                    .channelOption(.maxMessagesPerRead, value: 1)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                DatagramReceiver(remote: remote, endpoint: endpoint, sink: sink, closed: closed))
                        }
                    }
                    .bind(to: local)
                    .get()
            } catch {
                throw .io("cannot open a UDP socket: \(error)")
            }
        }
        // Connected, the kernel reports ICMP refusals to the socket. An address that cannot be
        // connected to (a broadcast address without SO_BROADCAST: EACCES) gets an unconnected
        // socket instead (SwiftNIO closes a channel whose connect failed).
        var channel = try await open()
        var connected = true
        do {
            try await channel.connect(to: remote).get()
        } catch {
            connected = false
            try? await channel.close()
            channel = try await open()
        }
        let keep = state.withLock { s -> Bool in
            guard !(s.channel?.isActive ?? false), !s.closed else { return false }
            s.channel = channel
            s.remote = remote
            s.connected = connected
            return true
        }
        if !keep {
            try? await channel.close()
            return
        }
        // Events are yielded on the loop (the contract of a bound transport).
        if eventLoop.inEventLoop {
            sink.yield(.connected)
        } else {
            eventLoop.execute { sink.yield(.connected) }
        }
    }

    /// The local address the session's datagrams leave from, once connected.
    public var localAddress: SocketAddress? {
        state.withLock { $0.channel?.localAddress }
    }

    /// Sends one SMP packet as one datagram.
    public func send(_ packet: [UInt8]) async throws(SMPTransportError) {
        let (written, remote) = try write(packet)
        do {
            if eventLoop.inEventLoop {
                // On the channel's own thread (as in `runConcurrencyOnOneEventLoopThread`) a
                // datagram is usually written before `writeAndFlush` returns: take that result at
                // once instead of suspending for it, which would cost a task switch per packet.
                if let result = Self.resultIfDone(written, on: eventLoop) { return try result.get() }
            }
            try await written.get()
        } catch {
            throw .io("UDP send to \(remote) failed: \(error)")
        }
    }

    /// Sends one datagram from the event loop without suspending. A datagram the socket could not
    /// take at once (its buffer is full) leaves when it can; should that fail, it is lost, as any
    /// datagram may be.
    public func sendWithoutSuspending(_ packet: [UInt8]) throws(SMPTransportError) {
        let (written, remote) = try write(packet)
        if let result = Self.resultIfDone(written, on: eventLoop), case .failure(let error) = result {
            throw .io("UDP send to \(remote) failed: \(error)")
        }
    }

    /// Hands one datagram to the channel.
    private func write(_ packet: [UInt8]) throws(SMPTransportError) -> (written: EventLoopFuture<Void>, remote: SocketAddress) {
        guard packet.count <= maximumPacketSize else {
            throw .packetTooLarge(size: packet.count, limit: maximumPacketSize)
        }
        let (channel, remote, connected, closed) = state.withLock { ($0.channel, $0.remote, $0.connected, $0.closed) }
        if closed { throw .closed }
        guard let channel, let remote else { throw .notConnected }
        let written = channel.eventLoop.makePromise(of: Void.self)
        let buffer = channel.allocator.buffer(bytes: packet)
        if connected {
            channel.writeAndFlush(buffer, promise: written)
        } else {
            channel.writeAndFlush(AddressedEnvelope(remoteAddress: remote, data: buffer), promise: written)
        }
        return (written.futureResult, remote)
    }

    /// The future's result if it is already there (call on `loop`).
    private static func resultIfDone(_ future: EventLoopFuture<Void>, on loop: any EventLoop) -> Result<Void, any Error>? {
        let outcome = NIOLoopBoundBox<Result<Void, any Error>?>(nil, eventLoop: loop)
        future.whenComplete { outcome.value = $0 }
        return outcome.value
    }

    /// The socket closed under the transport (called on its loop, from the handler): forget it, so
    /// that `connect()` opens another, and report the disconnect on the loop's next turn. SwiftNIO
    /// closes the socket inside the send that failed; deferred, the disconnect comes after that
    /// send has ended its request with the kernel's error (which says what went wrong), and still
    /// before a new socket can be opened on the loop. Not reported for an older socket or after
    /// `close()`.
    private func socketClosed(_ channel: any Channel, reason: String) {
        let current = state.withLock { s -> Bool in
            guard let open = s.channel, open === channel, !s.closed else { return false }
            s.channel = nil
            return true
        }
        guard current else { return }
        let sink = eventSink
        channel.eventLoop.execute { sink.yield(.disconnected(reason: reason)) }
    }

    /// Closes the socket and finishes `events`.
    public func close() async {
        let channel = state.withLock { s -> (any Channel)? in
            s.closed = true
            defer { s.channel = nil }
            return s.channel
        }
        try? await channel?.close()
        eventSink.finish()
    }
}

/// Passes datagrams from the device's address on as transport events, reports the network's
/// refusals (ICMP errors on the connected socket), and says when the socket closes.
private final class DatagramReceiver: ChannelDuplexHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundIn = Any

    let remote: SocketAddress
    /// The device's address as the user gave it, for messages.
    let endpoint: String
    let sink: SMPTransportEvents.Continuation
    let closed: @Sendable (any Channel, String) -> Void

    init(
        remote: SocketAddress, endpoint: String, sink: SMPTransportEvents.Continuation,
        closed: @escaping @Sendable (any Channel, String) -> Void
    ) {
        self.remote = remote
        self.endpoint = endpoint
        self.sink = sink
        self.closed = closed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard envelope.remoteAddress == remote else { return }
        sink.yield(.received(Array(buffer: envelope.data)))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP errors of the connected socket arrive here (SwiftNIO reads them with SO_ERROR) and
        // the socket stays open.
        if let error = error as? IOError { report(error.errnoCode) }
    }

    func flush(context: ChannelHandlerContext) {
        // A refusal the kernel holds for the socket would fail the next send, and SwiftNIO closes
        // the socket on that: take it here first (reading SO_ERROR clears it) and report it.
        if let code = try? context.channel.syncOptions?.getOption(ChannelOptions.socketOption(.so_error)), code != 0 {
            report(CInt(truncatingIfNeeded: code))
        }
        context.flush()
    }

    /// Reports a refusal; other errors are left to the send or the close they come with.
    private func report(_ code: CInt) {
        let reason: String
        switch code {
        case ECONNREFUSED: reason = "\(endpoint) refused the datagram (ICMP port unreachable: nothing listens on that UDP port)"
        case EHOSTUNREACH, EHOSTDOWN: reason = "no route to \(endpoint) (ICMP host unreachable)"
        case ENETUNREACH: reason = "no route to the network of \(endpoint) (ICMP network unreachable)"
        default: return
        }
        sink.yield(.unreachable(reason: reason))
    }

    func channelInactive(context: ChannelHandlerContext) {
        // SwiftNIO closed the socket on an error it does not pass over; the send that hit it
        // failed with that error.
        closed(context.channel, "the UDP socket to \(remote) was closed after a send or receive error")
        context.fireChannelInactive()
    }
}
