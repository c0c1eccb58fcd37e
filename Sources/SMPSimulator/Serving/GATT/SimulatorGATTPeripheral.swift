import GATT
import Logging
import SMP
import Synchronization

/// Serves a ``SimulatedDevice`` as a Bluetooth LE GATT peripheral, as Zephyr's `smp_bt` does: the
/// SMP service and characteristic (Write Without Response + Notify) with its CCCD, over any
/// `ATTBearer` — one end of a `socketpair(AF_UNIX, SOCK_SEQPACKET)`, or an in-memory bearer.
///
/// One connection at a time, like a peripheral with `CONFIG_BT_MAX_CONN=1`: a new one replaces the
/// old. Requests are reassembled by the SMP header's length (when configured) up to `buf_size`;
/// responses go out as notifications of ATT_MTU − 3 bytes, only after the client enabled them.
/// The device drops the link when it reboots, and refuses connections until it is back.
public final class SimulatorGATTPeripheral: Sendable {
    /// The device served.
    public let device: SimulatedDevice
    /// How the peripheral serves it.
    public let configuration: GATTPeripheralConfiguration
    /// The transport id the device knows the peripheral by.
    public let transport: TransportID
    private let clock: SMPClock
    private let logger: Logger
    private let link: LinkState

    /// State shared with the device's disconnect hook.
    private final class LinkState: Sendable {
        struct State {
            var connection: GATTPeripheralConnection?
            var refusedUntil: SMPInstant?
            var connections = 0
            var closed = false
        }
        let state = Mutex(State())
        let droppedResponses = Atomic<Int>(0)
    }

    private init(
        device: SimulatedDevice, configuration: GATTPeripheralConfiguration, transport: TransportID, clock: SMPClock,
        logger: Logger, link: LinkState
    ) {
        self.device = device
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.link = link
    }

    /// Registers the peripheral with `device`; connections come with ``accept(_:)``,
    /// ``connectSocketPair()`` or ``connectInMemory()``. Link pacing and refusals run on `clock`.
    public static func start(
        device: SimulatedDevice, configuration: GATTPeripheralConfiguration = GATTPeripheralConfiguration(),
        clock: SMPClock = .continuous, logger: Logger = Logger(label: "smp-simulator.gatt")
    ) async -> SimulatorGATTPeripheral {
        let link = LinkState()
        let transport = await device.registerTransport(name: "gatt", disconnectsOnReset: true) { duration in
            let connection = link.state.withLock { s -> GATTPeripheralConnection? in
                s.refusedUntil = clock.now + duration
                defer { s.connection = nil }
                return s.connection
            }
            await connection?.close()
        }
        return SimulatorGATTPeripheral(device: device, configuration: configuration, transport: transport, clock: clock, logger: logger, link: link)
    }

    /// Serves `bearer` as a new connection (closing the previous one); refused while the device
    /// is not advertising.
    public func accept(_ bearer: any ATTBearer) async throws(SimulatorGATTError) {
        let dropped = link
        let connection = GATTPeripheralConnection(
            bearer: bearer, device: device, transport: transport, configuration: configuration, clock: clock, logger: logger,
            responseDropped: { dropped.droppedResponses.add(1, ordering: .relaxed) })
        let now = clock.now
        let outcome = link.state.withLock { s -> Result<GATTPeripheralConnection?, SimulatorGATTError> in
            if s.closed { return .failure(.closed) }
            if let until = s.refusedUntil, now < until { return .failure(.notAdvertising) }
            s.refusedUntil = nil
            s.connections += 1
            defer { s.connection = connection }
            return .success(s.connection)
        }
        switch outcome {
        case .failure(let error):
            await bearer.close()
            throw error
        case .success(let previous):
            await previous?.close()
            connection.start()
        }
    }

    /// Makes a `socketpair(AF_UNIX, SOCK_SEQPACKET)`, serves one end and returns the other: what a
    /// central gets from connecting.
    public func connectSocketPair() async throws(SimulatorGATTError) -> FileDescriptorBearer {
        let client: FileDescriptorBearer
        let server: FileDescriptorBearer
        do {
            (client, server) = try FileDescriptorBearer.socketPair(logger: logger)
        } catch {
            throw .io("\(error)")
        }
        do {
            try await accept(server)
        } catch {
            await client.close()
            throw error
        }
        return client
    }

    /// Serves one end of an in-memory bearer pair and returns the other (for virtual-time tests).
    public func connectInMemory() async throws(SimulatorGATTError) -> MemoryATTBearer {
        let (client, server) = MemoryATTBearer.pair()
        try await accept(server)
        return client
    }

    /// Drops the current connection, as a device that disconnects.
    public func disconnect() async {
        let connection = link.state.withLock { s -> GATTPeripheralConnection? in
            defer { s.connection = nil }
            return s.connection
        }
        await connection?.close()
    }

    /// Drops the current connection and refuses new ones.
    public func close() async {
        link.state.withLock { $0.closed = true }
        await disconnect()
    }

    /// Until when the device refuses connections (it reboots, or a fault took its link down); nil
    /// when it takes them now. A peripheral on a real controller does not advertise until then.
    public var refusedUntil: SMPInstant? {
        let now = clock.now
        return link.state.withLock { s in s.refusedUntil.flatMap { $0 > now ? $0 : nil } }
    }

    /// How many connections were accepted.
    public var connectionCount: Int { link.state.withLock { $0.connections } }

    /// How many SMP responses were dropped because the client had not enabled notifications.
    public var responsesDroppedWithoutNotifications: Int { link.droppedResponses.load(ordering: .relaxed) }

    /// The ATT_MTU of the current connection (nil without one).
    public func currentMTU() async -> Int? {
        await link.state.withLock { $0.connection }?.mtu
    }

    /// Whether the current connection's client enabled notifications.
    public func notificationsEnabled() async -> Bool {
        await link.state.withLock { $0.connection }?.notificationsEnabled ?? false
    }
}
