import NIOCore
import NIOPosix
import SMP
import Synchronization

/// SMP over UDP (IPv4 or IPv6) on SwiftNIO: one SMP packet per datagram, as Zephyr's `smp_udp` expects.
///
/// Datagrams larger than `maximumPacketSize` are refused before sending. A device whose SMP buffer
/// is smaller than a datagram may silently corrupt it, so `SMPClient` also bounds requests by the
/// device's `buf_size` once it is known.
public final class UDPTransport: SMPTransport {
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

    private let eventSink: SMPTransportEvents.Continuation
    private let group: any EventLoopGroup
    private let state = Mutex(State())

    private struct State {
        var channel: (any Channel)?
        var remote: SocketAddress?
        var closed = false
    }

    /// Makes a transport to `host:port`; the socket opens on `connect()`.
    public init(
        host: String, port: Int = UDPTransport.defaultPort,
        maximumPacketSize: Int = UDPTransport.defaultMaximumPacketSize,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.host = host
        self.port = port
        self.maximumPacketSize = max(SMPHeader.size + 1, min(maximumPacketSize, 65_507))
        self.group = eventLoopGroup
        (events, eventSink) = SMPTransportEvents.makeStream()
    }

    /// Resolves the device's address and opens a socket bound to an ephemeral local port.
    public func connect() async throws(SMPTransportError) {
        let (isOpen, isClosed) = state.withLock { ($0.channel != nil, $0.closed) }
        if isClosed { throw .closed }
        if isOpen { return }
        let remote: SocketAddress
        do {
            remote = try SocketAddress.makeAddressResolvingHost(host, port: port)
        } catch {
            throw .unreachable("cannot resolve \(host):\(port): \(error)")
        }
        let sink = eventSink
        let bindHost = remote.protocol == .inet6 ? "::" : "0.0.0.0"
        let channel: any Channel
        do {
            // No SO_REUSEADDR: on Linux, two UDP sockets that both set it can be given the same
            // ephemeral port, and then one receives the other's answers (seen as sessions in
            // parallel tests timing out and resending a write the device had already taken).
            channel = try await DatagramBootstrap(group: group)
                // One datagram per wake-up: the answer goes to the session at once, instead of
                // after another read that finds the socket empty (more answers waiting are read
                // on the loop's next turn).
                .channelOption(.maxMessagesPerRead, value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(DatagramReceiver(remote: remote, sink: sink))
                    }
                }
                .bind(host: bindHost, port: 0)
                .get()
        } catch {
            throw .io("cannot open a UDP socket: \(error)")
        }
        let keep = state.withLock { s -> Bool in
            guard s.channel == nil, !s.closed else { return false }
            s.channel = channel
            s.remote = remote
            return true
        }
        if !keep {
            try? await channel.close()
            return
        }
        sink.yield(.connected)
    }

    /// The local address the session's datagrams leave from, once connected.
    public var localAddress: SocketAddress? {
        state.withLock { $0.channel?.localAddress }
    }

    /// Sends one SMP packet as one datagram.
    public func send(_ packet: [UInt8]) async throws(SMPTransportError) {
        guard packet.count <= maximumPacketSize else {
            throw .packetTooLarge(size: packet.count, limit: maximumPacketSize)
        }
        let (channel, remote, closed) = state.withLock { ($0.channel, $0.remote, $0.closed) }
        if closed { throw .closed }
        guard let channel, let remote else { throw .notConnected }
        let buffer = channel.allocator.buffer(bytes: packet)
        let loop = channel.eventLoop
        let written = loop.makePromise(of: Void.self)
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: remote, data: buffer), promise: written)
        do {
            if loop.inEventLoop {
                // On the channel's own thread (as in `runConcurrencyOnOneEventLoopThread`) a
                // datagram is usually written before `writeAndFlush` returns: take that result at
                // once instead of suspending for it, which would cost a task switch per packet.
                let outcome = NIOLoopBoundBox<Result<Void, any Error>?>(nil, eventLoop: loop)
                written.futureResult.whenComplete { outcome.value = $0 }
                if let result = outcome.value { return try result.get() }
            }
            try await written.futureResult.get()
        } catch {
            throw .io("UDP send to \(remote) failed: \(error)")
        }
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

/// Passes datagrams from the device's address on as transport events.
private final class DatagramReceiver: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    let remote: SocketAddress
    let sink: SMPTransportEvents.Continuation

    init(remote: SocketAddress, sink: SMPTransportEvents.Continuation) {
        self.remote = remote
        self.sink = sink
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard envelope.remoteAddress == remote else { return }
        sink.yield(.received(Array(buffer: envelope.data)))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP port-unreachable and similar arrive here; UDP has no link to lose, so keep going.
    }
}
