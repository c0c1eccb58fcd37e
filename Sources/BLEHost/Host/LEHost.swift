import GATT
import Logging
import NIOConcurrencyHelpers

/// A minimal Bluetooth LE host on one HCI controller, central or peripheral: it sets the
/// controller up, scans and connects, or advertises and accepts, keeps ACL flow control, and
/// carries L2CAP's fixed ATT and signalling channels.
///
/// It knows nothing of SMP: a connection's ``LEConnection/attBearer`` is an `ATTBearer`, and a
/// GATT client (or server) runs over it exactly as over a kernel L2CAP socket. Call ``start()``
/// once, then ``scan(for:service:until:matching:)`` and ``connect(to:parameters:timeout:)``, or
/// ``accept(advertising:)``, as often as needed, and ``close()`` at the end. Pairing and
/// encryption are not supported.
public final class LEHost: Sendable {
    /// How the host sets up the controller and its connections.
    public struct Configuration: Sendable, Hashable {
        /// How long a command may wait for its answer.
        public var commandTimeout: Duration
        /// How long an optional command (LE Set PHY, LE Connection Update, LE Set Data Length) may
        /// wait for its answer before the host carries on without it (bumble's controller never
        /// answers some of them).
        public var optionalCommandTimeout: Duration
        /// The connection parameters asked for (7.5–15 ms by default).
        public var connectionParameters: LEConnectionParameters
        /// How long a connection attempt may take.
        public var connectTimeout: Duration
        /// The largest ATT PDU the ATT channel carries (its L2CAP MTU); 517 fits any ATT MTU.
        public var attMTU: Int
        /// Ask for 251-byte link-layer payloads when the controller supports Data Length Extension.
        public var requestDataLength: Bool
        /// Ask for the 2M PHY when the controller supports it.
        public var request2MPHY: Bool
        /// The host's own random static address; nil makes one.
        public var address: LEAddress?
        /// The most connections the host keeps at once (those it made or accepted); a connection
        /// attempt past it fails as busy. Connections the controller reports that nobody asked for
        /// are never kept: they are disconnected, at most ``LEHost/strayDisconnectRate`` a second.
        public var maximumConnections: Int

        /// Makes a configuration.
        public init(
            commandTimeout: Duration = .seconds(5), optionalCommandTimeout: Duration = .seconds(1),
            connectionParameters: LEConnectionParameters = LEConnectionParameters(), connectTimeout: Duration = .seconds(10),
            attMTU: Int = 517, requestDataLength: Bool = true, request2MPHY: Bool = true, address: LEAddress? = nil,
            maximumConnections: Int = 8
        ) {
            self.commandTimeout = commandTimeout
            self.optionalCommandTimeout = optionalCommandTimeout
            self.connectionParameters = connectionParameters
            self.connectTimeout = connectTimeout
            self.attMTU = attMTU
            self.requestDataLength = requestDataLength
            self.request2MPHY = request2MPHY
            self.address = address
            self.maximumConnections = max(1, maximumConnections)
        }
    }

    /// The link to the controller.
    public let transport: any HCITransport
    /// The configuration the host was made with.
    public let configuration: Configuration

    let clock: HostClock
    let logger: Logger
    // Locks here are pthread mutexes (NIOLockedValueBox), not `Synchronization.Mutex`: on Linux the
    // latter hands a contended lock over inside the kernel (`FUTEX_LOCK_PI`), where ThreadSanitizer
    // sees no release/acquire, so sections contended by the read loop and the callers were reported
    // as data races under `make sanitize`.
    let state: NIOLockedValueBox<HostState>
    let commandGate = AsyncGate()
    let procedureGate = AsyncGate()
    private let started = NIOLockedValueBox(false)

    /// Makes a host on `transport`; nothing is sent before ``start()``.
    public init(
        transport: any HCITransport, configuration: Configuration = Configuration(), clock: HostClock = .continuous,
        logger: Logger = Logger(label: "ble.host")
    ) {
        self.transport = transport
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        var generator = SystemRandomNumberGenerator()
        let address = configuration.address ?? LEAddress.staticRandom(using: &generator)
        self.state = NIOLockedValueBox(HostState(address: address, maximumPDUSize: max(23, configuration.attMTU)))
    }

    /// What ``start()`` learnt from the controller.
    public var controller: ControllerInfo? { state.withLockedValue { $0.info } }

    /// The host's own (random static) address.
    public var address: LEAddress { state.withLockedValue { $0.address } }

    /// Resets the controller and reads what the host needs: version, LE buffers, LE features;
    /// sets the event masks and the host's random address. Call once, before anything else.
    @discardableResult
    public func start() async throws(LEHostError) -> ControllerInfo {
        let first = started.withLockedValue { value -> Bool in
            defer { value = true }
            return !value
        }
        guard first else {
            if let info = controller { return info }
            throw .busy("the LE host is already starting")
        }
        clock.task { [self] in await readLoop() }
        return try await setUpController()
    }

    /// Resets the controller, as powering it off and on does: every connection ends without a
    /// word to its peer (disconnect them first to tell them), advertising and scanning stop, and
    /// the host sets the controller up again with the same address. Call between procedures (no
    /// scan, connect or accept waiting), after ``start()``.
    @discardableResult
    public func resetController() async throws(LEHostError) -> ControllerInfo {
        guard controller != nil else { throw .busy("the LE host has not started") }
        let handles = state.withLockedValue { Array($0.connections.keys) }
        for handle in handles { connectionEnded(handle: handle, reason: .localHostTerminated) }
        logger.info("resetting the controller on \(transport)")
        return try await setUpController()
    }

    /// HCI Reset, then what the host needs from the controller and tells it.
    private func setUpController() async throws(LEHostError) -> ControllerInfo {
        try await run(.reset)
        let version = try await run(.readLocalVersion)
        try await run(.setEventMask(Self.eventMask))
        try await run(.leSetEventMask(Self.leEventMask))
        let (length, count) = try await readBufferSize()
        let features = try await run(.leReadLocalSupportedFeatures)
        let address = self.address
        try await run(.leSetRandomAddress(address))
        // Status, HCI version, HCI revision, LMP version, manufacturer; status, 8 feature bytes.
        let (hciVersion, manufacturer, featureBits) = try decode { () throws(HCIDecodingError) in
            var v = ByteReader(version, what: "Read Local Version Information")
            _ = try v.u8()
            let hciVersion = try v.u8()
            _ = try v.bytes(3)
            let manufacturer = try v.u16()
            var f = ByteReader(features, what: "LE Read Local Supported Features")
            _ = try f.u8()
            return (hciVersion, manufacturer, try f.u64())
        }
        let info = ControllerInfo(
            hciVersion: hciVersion, manufacturer: manufacturer, aclDataLength: length, aclBuffers: count, features: LEFeatures(rawValue: featureBits),
            address: address)
        state.withLockedValue {
            $0.info = info
            $0.credits = ACLCredits(total: count)
        }
        logger.info(
            "controller on \(transport): HCI version \(hciVersion), LE ACL \(count) × \(length) bytes, features \(info.features), address \(address)")
        return info
    }

    /// LE buffers: v2, else v1; the shared BR/EDR buffers when the LE ones are 0.
    private func readBufferSize() async throws(LEHostError) -> (length: Int, count: Int) {
        var answer: [UInt8]
        do {
            answer = try await run(.leReadBufferSizeV2)
        } catch .commandFailed(_, .unknownCommand) {
            answer = try await run(.leReadBufferSize)
        }
        // Status, LE ACL data packet length, total LE ACL packets (v2 adds the ISO buffers after).
        var (length, count) = try decode { () throws(HCIDecodingError) in
            var r = ByteReader(answer, what: "LE Read Buffer Size")
            _ = try r.u8()
            return (Int(try r.u16()), Int(try r.u8()))
        }
        if length == 0 || count == 0 {
            let shared = try await run(.readBufferSize)
            // Status, ACL length, SCO length, total ACL packets, total SCO packets.
            (length, count) = try decode { () throws(HCIDecodingError) in
                var s = ByteReader(shared, what: "Read Buffer Size")
                _ = try s.u8()
                let length = Int(try s.u16())
                _ = try s.u8()
                return (length, Int(try s.u16()))
            }
        }
        guard length > 0, count > 0 else { throw .invalidAnswer("the controller reports no ACL buffers") }
        return (length, count)
    }

    func decode<T>(_ body: () throws(HCIDecodingError) -> T) throws(LEHostError) -> T {
        do { return try body() } catch { throw .invalidAnswer(error.description) }
    }

    /// Whether the host has stopped (closed, or its link to the controller ended).
    public var isClosed: Bool { state.withLockedValue { $0.closedReason != nil } }

    /// Switches a finished scan off (at most the optional-command timeout), disconnects every
    /// connection, ends the reader and closes the transport: the controller is left idle for the
    /// next host (a TCP virtual controller outlives its hosts).
    public func close() async {
        if let stopping = state.withLockedValue({ $0.scanStop }) { await stopping.value }
        let connections = state.withLockedValue { Array($0.connections.values) }
        for connection in connections { await connection.disconnect() }
        await transport.close()
        shutDown("the host was closed")
    }

    /// Unsolicited connections queued for a disconnect at most; past it they are left to the
    /// controller (counted and logged), so a flood of LE Connection Complete events costs no memory.
    static let strayCapacity = 64
    /// Unsolicited connections disconnected per second at most (one Disconnect command at a time).
    public static let strayDisconnectRate = 20

    /// Disconnection Complete, Encryption Change, Hardware Error, Data Buffer Overflow, Encryption Key Refresh, LE Meta.
    static let eventMask: UInt64 = 1 << 4 | 1 << 7 | 1 << 15 | 1 << 25 | 1 << 47 | 1 << 61
    /// LE Connection Complete, Advertising Report, Connection Update Complete, Read Remote Features
    /// Complete, Remote Connection Parameter Request, Data Length Change, PHY Update Complete.
    static let leEventMask: UInt64 = 1 << 0 | 1 << 1 | 1 << 2 | 1 << 3 | 1 << 5 | 1 << 6 | 1 << 11
}

/// What the controller told the host at start.
public struct ControllerInfo: Sendable, Hashable {
    /// The HCI version (e.g. 9 for Core 5.0).
    public var hciVersion: UInt8
    /// The manufacturer's company identifier (0xFFFF for none, as bumble reports).
    public var manufacturer: UInt16
    /// The largest ACL fragment the controller takes from the host.
    public var aclDataLength: Int
    /// How many ACL fragments the controller buffers.
    public var aclBuffers: Int
    /// The controller's LE features.
    public var features: LEFeatures
    /// The host's own address on this controller.
    public var address: LEAddress
}

/// The LE features a controller reports (Core spec Vol 6 Part B 4.6), those this host uses by name.
public struct LEFeatures: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The 64 feature bits.
    public let rawValue: UInt64

    /// Wraps the bits.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// LE Encryption.
    public static let encryption = LEFeatures(rawValue: 1 << 0)
    /// Connection Parameters Request procedure.
    public static let connectionParametersRequest = LEFeatures(rawValue: 1 << 1)
    /// LE Data Packet Length Extension.
    public static let dataLengthExtension = LEFeatures(rawValue: 1 << 5)
    /// LE 2M PHY.
    public static let phy2M = LEFeatures(rawValue: 1 << 8)
    /// LE Coded PHY.
    public static let phyCoded = LEFeatures(rawValue: 1 << 11)

    /// The named features present, e.g. `[DLE, 2M]`.
    public var description: String {
        let names: [(LEFeatures, String)] = [(.encryption, "encryption"), (.dataLengthExtension, "DLE"), (.phy2M, "2M"), (.phyCoded, "coded")]
        return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}
