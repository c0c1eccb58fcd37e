import NIOCore
import NIOPosix

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

    /// Binds `host:port` (default 127.0.0.1:1337; `::1` for IPv6) and starts serving `device`.
    ///
    /// The socket does not set `SO_REUSEADDR`: a port already served fails to bind rather than
    /// sharing its datagrams with another simulator.
    public static func start(
        device: SimulatedDevice, host: String = "127.0.0.1", port: Int = 1337,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> SimulatorUDPServer {
        let asyncChannel = try await DatagramBootstrap(group: group)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65_536))
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>(
                        wrappingChannelSynchronously: channel)
                }
            }
        let channel = asyncChannel.channel
        guard let address = channel.localAddress else {
            try? await channel.close()
            throw SimulatorServerError.notBound
        }
        let id = await device.registerTransport(name: "udp \(address)")
        let task = device.clock.task {
            _ = try? await asyncChannel.executeThenClose { inbound, outbound in
                for try await envelope in inbound {
                    let remote = envelope.remoteAddress
                    let bytes = Array(envelope.data.readableBytesView)
                    await device.receive(bytes, from: id) { response in
                        try? await outbound.write(AddressedEnvelope(remoteAddress: remote, data: ByteBuffer(bytes: response)))
                    }
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

/// Why a simulator server could not start.
public enum SimulatorServerError: Error, Sendable, CustomStringConvertible {
    /// The socket has no local address after binding.
    case notBound

    /// A message.
    public var description: String { "the socket has no local address after binding" }
}
