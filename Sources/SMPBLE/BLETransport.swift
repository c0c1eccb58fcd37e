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
    public var events: SMPTransportEvents { core.events }
    /// What the transport connects through.
    public let connector: BLEConnector
    /// The configuration the transport was made with (the reassembly buffer may change since).
    public let configuration: Configuration

    private let core: GATTTransportCore
    private let state = Mutex(State())

    private struct State {
        var link: Link?
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
        self.core = GATTTransportCore(
            reassemblyBuffer: configuration.reassemblyBufferSize, deviceReassembles: configuration.deviceReassembles, clock: clock, logger: logger)
    }

    /// The device's reassembly buffer (`buf_size`) when it reassembles writes; nil sends only
    /// packets that fit one write. The session sets it once it knows the device's parameters.
    public var reassemblyBufferSize: Int? {
        get { core.reassemblyBuffer }
        set { core.reassemblyBuffer = newValue }
    }

    /// The session's report of the device's `buf_size` (once it negotiated): the device reassembles
    /// writes into a buffer that size (Nordic's libraries assume the same of a device that answers
    /// the parameters command). A reassembly buffer given in the configuration wins.
    public func setDeviceBufferSize(_ size: Int?) async {
        core.deviceReported(bufferSize: size)
    }

    /// The ATT_MTU of the current (or last) connection; 23 before the first.
    public var mtu: Int { core.mtu }

    /// The largest SMP packet sent: the reassembly buffer when the device reassembles and it is
    /// larger than one write, else ATT_MTU − 3.
    public var maximumPacketSize: Int {
        get async { core.maximumPacketSize }
    }

    /// One write's value: ATT_MTU − 3.
    public var linkUnit: Int {
        get async { core.linkUnit }
    }

    /// Connects (or reconnects after a disconnect): new bearer, MTU exchange, discovery, CCCD.
    /// Does nothing while connected.
    public func connect() async throws(SMPTransportError) {
        try await core.connectGate.withGate { () async throws(SMPTransportError) in
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
        let gattClock = GATTClock(core.clock, taskExecutor: core.clock.taskExecutor)
        let client = GATTClient(
            bearer: bearer,
            configuration: GATTClient.Configuration(preferredMTU: configuration.preferredMTU, transactionTimeout: configuration.transactionTimeout),
            clock: gattClock, logger: core.logger)
        let link: Link
        do {
            link = try await setUp(client)
        } catch {
            await client.close()
            if let pairing = Self.pairingRequired(error) { throw .unreachable("\(connector): \(pairing)") }
            throw .unreachable("\(connector): \(error)")
        }
        let stale = state.withLock { s -> Bool in
            if s.closed { return true }
            s.link = link
            return false
        }
        if stale {
            await client.close()
            throw .closed
        }
        startForwarding(link)
        core.connected(mtu: link.mtu, "connected to \(connector): ATT MTU \(link.mtu)")
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

    /// The line for a device that refused an ATT request because the link is not paired and
    /// encrypted (Zephyr's `CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW_AUTHEN`, on by default with
    /// `CONFIG_BT_SMP`); nil for any other failure.
    static func pairingRequired(_ error: GATTError) -> String? {
        guard case .att(let response) = error, response.code.needsPairing else { return nil }
        return "the device requires pairing (\(response)): pair it first (`bluetoothctl pair ADDRESS`), "
            + "or let the kernel pair as it connects (--ble-security medium or high; security= in a connection string)"
    }

    /// Feeds one connection's notifications through a fresh assembler until the bearer closes.
    private func startForwarding(_ link: Link) {
        let core = self.core
        core.clock.task {
            var assembler = SMPPacketAssembler.responses()
            var reason = "the link ended"
            for await event in link.client.events {
                switch event {
                case .notification(_, let value), .indication(_, let value):
                    core.notified(value, assembler: &assembler)
                case .closed(let why):
                    reason = why
                }
            }
            let partial = assembler.reset()
            if partial > 0 { core.logger.debug("dropped \(partial) bytes of a partial response") }
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
        core.disconnected(reason, what: "\(connector)")
    }

    /// Sends one SMP packet as consecutive Write Commands of at most ATT_MTU − 3 bytes.
    public func send(_ packet: [UInt8]) async throws(SMPTransportError) {
        try await core.sendGate.withGate { () async throws(SMPTransportError) in
            let (link, closed) = state.withLock { ($0.link, $0.closed) }
            if closed { throw .closed }
            guard let link else { throw .notConnected }
            for write in try core.writes(of: packet, mtu: link.mtu) {
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
        core.finish()
    }
}
