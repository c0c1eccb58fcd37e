import GATT
import Logging
import SMP
import Synchronization

/// SMP over Bluetooth LE GATT: requests are Write Commands to the SMP characteristic, responses
/// arrive as its notifications.
///
/// `connect()` makes a bearer through the ``BLEConnector``, exchanges MTUs, discovers the SMP
/// service, characteristic and CCCD, and enables notifications. A packet longer than
/// ATT_MTU − 3 is split into consecutive Write Commands (the device reassembles by the SMP header's
/// length); one packet's writes are never interleaved with another's. Notifications are joined
/// into whole packets by `SMPPacketAssembler`. After a disconnect, `connect()` makes a new bearer,
/// which may bring another MTU; ``linkUnit`` and ``maximumPacketSize`` follow it.
public final class BLETransport: SMPTransport {
    /// The SMP service.
    public static let serviceUUID = BluetoothUUID(string: "8D53DC1D-1DB7-4CD3-868B-8A527460AA84")!
    /// The SMP characteristic (requests written, responses notified).
    public static let characteristicUUID = BluetoothUUID(string: "DA2E7828-FBCE-4E01-AE9E-261174997C48")!

    /// How the transport sets up its link.
    public struct Configuration: Sendable, Hashable {
        /// The ATT MTU asked for (498 by default: one write fills two 251-byte link-layer packets).
        public var preferredMTU: Int
        /// How long an ATT request may wait for its response (the spec's 30 s by default).
        public var transactionTimeout: Duration
        /// The device's reassembly buffer (`buf_size`) when it reassembles fragmented writes; nil
        /// while unknown, so that packets fit one write.
        public var reassemblyBufferSize: Int?
        /// Whether the device reassembles writes into its `buf_size` once the session has read it
        /// (Zephyr's `CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY`, on in nRF Connect SDK builds); when
        /// false, and no ``reassemblyBufferSize`` is given, every packet fits one write.
        public var deviceReassembles: Bool

        /// Makes a configuration.
        public init(
            preferredMTU: Int = 498, transactionTimeout: Duration = .seconds(30), reassemblyBufferSize: Int? = nil,
            deviceReassembles: Bool = true
        ) {
            self.preferredMTU = preferredMTU
            self.transactionTimeout = transactionTimeout
            self.reassemblyBufferSize = reassemblyBufferSize
            self.deviceReassembles = deviceReassembles
        }
    }

    /// Whole SMP packets from the device and link changes.
    public let events: SMPTransportEvents
    /// What the transport connects through.
    public let connector: BLEConnector
    /// The configuration the transport was made with (the reassembly buffer may change since).
    public let configuration: Configuration

    private let eventSink: SMPTransportEvents.Continuation
    private let clock: SMPClock
    private let logger: Logger
    private let state: Mutex<State>
    private let connectGate = AsyncGate()
    private let sendGate = AsyncGate()

    private struct State {
        var link: Link?
        var mtu = GATTClient.defaultMTU
        var reassemblyBufferSize: Int?
        var generation = 0
        var closed = false
    }

    /// One connection's GATT client and SMP characteristic.
    private struct Link: Sendable {
        let client: GATTClient
        let valueHandle: UInt16
        let mtu: Int
        let generation: Int
    }

    /// Makes a transport that connects through `connector` on `connect()`.
    public init(
        connector: BLEConnector, configuration: Configuration = Configuration(), clock: SMPClock = .continuous,
        logger: Logger = Logger(label: "smp.ble")
    ) {
        self.connector = connector
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.state = Mutex(State(reassemblyBufferSize: configuration.reassemblyBufferSize))
        (events, eventSink) = SMPTransportEvents.makeStream()
    }

    /// The device's reassembly buffer (`buf_size`) when it reassembles writes; nil sends only
    /// packets that fit one write. The session sets it once it knows the device's parameters.
    public var reassemblyBufferSize: Int? {
        get { state.withLock { $0.reassemblyBufferSize } }
        set { state.withLock { $0.reassemblyBufferSize = newValue.map { max($0, 0) } } }
    }

    /// The session's report of the device's `buf_size` (once it negotiated): the device reassembles
    /// writes into a buffer that size (Nordic's libraries assume the same of a device that answers
    /// the parameters command). A reassembly buffer given in the configuration wins.
    public func setDeviceBufferSize(_ size: Int?) async {
        guard configuration.reassemblyBufferSize == nil, configuration.deviceReassembles else { return }
        reassemblyBufferSize = size
    }

    /// The ATT_MTU of the current (or last) connection; 23 before the first.
    public var mtu: Int { state.withLock { $0.mtu } }

    /// The largest SMP packet sent: the reassembly buffer when the device reassembles and it is
    /// larger than one write, else ATT_MTU − 3.
    public var maximumPacketSize: Int {
        get async { state.withLock { SMPOverGATTWrites.packetLimit(mtu: $0.mtu, reassemblyBuffer: $0.reassemblyBufferSize) } }
    }

    /// One write's value: ATT_MTU − 3.
    public var linkUnit: Int {
        get async { state.withLock { $0.mtu } - 3 }
    }

    /// Connects (or reconnects after a disconnect): new bearer, MTU exchange, discovery, CCCD.
    /// Does nothing while connected.
    public func connect() async throws(SMPTransportError) {
        try await connectGate.withGate { () async throws(SMPTransportError) in
            try await establish()
        }
    }

    private func establish() async throws(SMPTransportError) {
        let (current, closed) = state.withLock { ($0.link, $0.closed) }
        if closed { throw .closed }
        if let current {
            // Up, unless its bearer has closed and the forwarding task has not said so yet.
            guard let reason = await current.client.closeReason else { return }
            linkEnded(current, reason: reason)
        }
        let bearer: any ATTBearer
        do {
            bearer = try await connector.makeBearer()
        } catch {
            throw .unreachable(error.description)
        }
        let gattClock = GATTClock(clock, taskExecutor: clock.taskExecutor)
        let client = GATTClient(
            bearer: bearer,
            configuration: GATTClient.Configuration(preferredMTU: configuration.preferredMTU, transactionTimeout: configuration.transactionTimeout),
            clock: gattClock, logger: logger)
        let link: Link
        do {
            link = try await setUp(client)
        } catch {
            await client.close()
            throw .unreachable("\(connector): \(error)")
        }
        let stale = state.withLock { s -> Bool in
            if s.closed { return true }
            s.link = link
            s.mtu = link.mtu
            return false
        }
        if stale {
            await client.close()
            throw .closed
        }
        logger.info("connected to \(connector): ATT MTU \(link.mtu)")
        startForwarding(link)
        eventSink.yield(.connected)
    }

    /// MTU exchange, discovery of the SMP service, characteristic and CCCD, notifications on.
    private func setUp(_ client: GATTClient) async throws(GATTError) -> Link {
        let mtu = try await client.exchangeMTU()
        guard let service = try await client.discoverPrimaryServices(uuid: Self.serviceUUID).first else {
            throw .notFound("the SMP service \(Self.serviceUUID)")
        }
        let characteristics = try await client.discoverCharacteristics(of: service)
        guard let characteristic = characteristics.first(where: { $0.uuid == Self.characteristicUUID }) else {
            throw .notFound("the SMP characteristic \(Self.characteristicUUID)")
        }
        guard characteristic.properties.contains(.notify) else {
            throw .notFound("notifications on the SMP characteristic (properties \(characteristic.properties))")
        }
        try await client.setNotifications(.notifications, for: characteristic)
        let generation = state.withLock { s -> Int in
            s.generation += 1
            return s.generation
        }
        return Link(client: client, valueHandle: characteristic.valueHandle, mtu: mtu, generation: generation)
    }

    /// Feeds one connection's notifications through a fresh assembler until the bearer closes.
    private func startForwarding(_ link: Link) {
        let sink = eventSink
        let logger = self.logger
        clock.task {
            var assembler = SMPPacketAssembler.responses()
            var reason = "the link ended"
            for await event in link.client.events {
                switch event {
                case .notification(_, let value), .indication(_, let value):
                    assembler.append(value) { output in
                        switch output {
                        case .packet(let packet): sink.yield(.received(packet))
                        case .skipped(let error): logger.notice("notification bytes dropped: \(error)")
                        }
                    }
                case .closed(let why):
                    reason = why
                }
            }
            let partial = assembler.reset()
            if partial > 0 { logger.debug("dropped \(partial) bytes of a partial response") }
            self.linkEnded(link, reason: reason)
        }
    }

    private func linkEnded(_ link: Link, reason: String) {
        let current = state.withLock { s -> Bool in
            guard s.link?.generation == link.generation else { return false }
            s.link = nil
            return !s.closed
        }
        guard current else { return }
        logger.info("disconnected from \(connector): \(reason)")
        eventSink.yield(.disconnected(reason: reason))
    }

    /// Sends one SMP packet as consecutive Write Commands of at most ATT_MTU − 3 bytes.
    public func send(_ packet: [UInt8]) async throws(SMPTransportError) {
        try await sendGate.withGate { () async throws(SMPTransportError) in
            let (link, closed, buffer) = state.withLock { ($0.link, $0.closed, $0.reassemblyBufferSize) }
            if closed { throw .closed }
            guard let link else { throw .notConnected }
            for write in try SMPOverGATTWrites.writes(of: packet, mtu: link.mtu, reassemblyBuffer: buffer) {
                do throws(GATTError) {
                    try await link.client.writeWithoutResponse(Array(write), to: link.valueHandle)
                } catch {
                    if case .closed(let reason) = error { throw .disconnected(reason: reason) }
                    throw .io("BLE write failed: \(error)")
                }
            }
        }
    }

    /// Disconnects for good and finishes `events`.
    public func close() async {
        let link = state.withLock { s -> Link? in
            s.closed = true
            defer { s.link = nil }
            return s.link
        }
        await link?.client.close()
        eventSink.finish()
    }
}
