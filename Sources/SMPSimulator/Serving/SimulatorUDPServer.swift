import NIOCore
import NIOPosix
import SMP

/// Serves a ``SimulatedDevice`` over UDP as Zephyr's `smp_udp` does: one SMP packet per datagram,
/// each response sent to the source address of its request. IPv4 or IPv6, as the bind host is.
public final class SimulatorUDPServer: Sendable {
    /// The address the socket is bound to (with the real port when 0 was asked for).
    public let localAddress: SocketAddress
    /// The transport id the device knows this socket by.
    public let transport: TransportID
    private let channel: any Channel
    private let task: Task<Void, Never>

    private init(localAddress: SocketAddress, transport: TransportID, channel: any Channel, task: Task<Void, Never>) {
        self.localAddress = localAddress
        self.transport = transport
        self.channel = channel
        self.task = task
    }

    /// The bound port.
    public var port: Int { localAddress.port ?? 0 }

    /// Datagrams read and not yet taken by the device; more are dropped, as a device whose
    /// network buffers are full drops them.
    static let queuedDatagramLimit = 1024

    /// Binds `host:port` (default 127.0.0.1:1337; `::1` for IPv6) and starts serving `device`.
    ///
    /// The socket does not set `SO_REUSEADDR`: a port already served fails to bind rather than
    /// sharing its datagrams with another simulator.
    public static func start(
        device: SimulatedDevice, host: String = "127.0.0.1", port: Int = 1337,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> SimulatorUDPServer {
        let datagrams = SingleConsumerQueue<AddressedEnvelope<ByteBuffer>>(limit: Self.queuedDatagramLimit)
        let channel = try await DatagramBootstrap(group: group)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65_536))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DatagramForwarder(datagrams: datagrams))
                }
            }
            .bind(host: host, port: port).get()
        guard let address = channel.localAddress else {
            try? await channel.close()
            throw SimulatorServerError.notBound
        }
        let id = await device.registerTransport(name: "udp \(address)")
        let task = device.clock.task {
            while let envelope = await datagrams.next() {
                let remote = envelope.remoteAddress
                await device.receive(Array(envelope.data.readableBytesView), from: id) { response in
                    channel.writeAndFlush(AddressedEnvelope(remoteAddress: remote, data: ByteBuffer(bytes: response)), promise: nil)
                }
            }
        }
        return SimulatorUDPServer(localAddress: address, transport: id, channel: channel, task: task)
    }

    /// Closes the socket and waits until serving stopped.
    public func close() async {
        try? await channel.close()
        task.cancel()
        await task.value
    }

    /// Waits until the socket is closed.
    public func wait() async {
        await task.value
    }
}

/// Hands each datagram read to the device's task, as soon as it is read (no back-pressure
/// machinery between the socket and the device: the link model does the queuing), and ends the
/// hand-over when the socket closes.
private final class DatagramForwarder: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    let datagrams: SingleConsumerQueue<AddressedEnvelope<ByteBuffer>>

    init(datagrams: SingleConsumerQueue<AddressedEnvelope<ByteBuffer>>) {
        self.datagrams = datagrams
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        datagrams.yield(unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        datagrams.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP errors for a client that went away: UDP has no link to lose, keep serving.
    }
}

/// Why a simulator server could not start.
public enum SimulatorServerError: Error, Sendable, CustomStringConvertible {
    /// The socket has no local address after binding.
    case notBound

    /// A message.
    public var description: String { "the socket has no local address after binding" }
}
