import Logging
import SMP

/// Turns a ``ConnectionSpec`` into a connected transport and an `SMPClient` on it.
///
/// One connector is registered per ``TransportKind``. ``standard`` holds UDP, serial and both
/// Bluetooth LE kinds; a kind without a connector (the built-in simulator, unless a program
/// registers it) fails with ``ConnectionError/transportUnavailable(_:)``. A transport plugs in with one entry:
///
/// ```swift
/// var factory = ConnectionFactory()
/// factory.register(.serial) { spec, options throws(ConnectionError) in
///     guard case .serial(let parameters) = spec else { throw .unsupported(spec) }
///     let transport = try MyTransport(path: parameters.device)
///     try await ConnectionFactory.open(transport, spec: spec)
///     return transport
/// }
/// ```
public struct ConnectionFactory: Sendable {
    /// Makes a connected transport for a spec of the kind it was registered for.
    public typealias Connector = @Sendable (ConnectionSpec, ConnectionOptions) async throws(ConnectionError) -> any SMPTransport

    /// Lists the SMP devices a transport kind can reach (Bluetooth LE scans), for `duration`.
    public typealias Scanner = @Sendable (ConnectionSpec, Duration, ConnectionOptions) async throws(ConnectionError) -> [DeviceScanResult]

    private var connectors: [TransportKind: Connector] = [:]
    private var scanners: [TransportKind: Scanner] = [:]

    /// A factory with no connectors.
    public init() {}

    /// Registers (or replaces) the connector for `kind`.
    public mutating func register(_ kind: TransportKind, connector: @escaping Connector) {
        connectors[kind] = connector
    }

    /// Registers (or replaces) the scanner for `kind`.
    public mutating func registerScanner(_ kind: TransportKind, scanner: @escaping Scanner) {
        scanners[kind] = scanner
    }

    /// The SMP devices found by scanning through what `spec` names (its kind's scanner) for `duration`.
    public func scan(_ spec: ConnectionSpec, for duration: Duration, options: ConnectionOptions = ConnectionOptions()) async throws(ConnectionError) -> [DeviceScanResult] {
        guard let scanner = scanners[spec.kind] else { throw .transportUnavailable(spec.kind) }
        return try await scanner(spec, duration, options)
    }

    /// Whether a connector for `kind` is registered.
    public func isAvailable(_ kind: TransportKind) -> Bool {
        connectors[kind] != nil
    }

    /// A connected transport to the device `spec` names.
    public func makeTransport(_ spec: ConnectionSpec, options: ConnectionOptions = ConnectionOptions()) async throws(ConnectionError) -> any SMPTransport {
        guard let connector = connectors[spec.kind] else { throw .transportUnavailable(spec.kind) }
        return try await connector(spec, options)
    }

    /// A session to the device `spec` names; close it with ``DeviceConnection/close()``.
    public func connect(_ spec: ConnectionSpec, options: ConnectionOptions = ConnectionOptions()) async throws(ConnectionError) -> DeviceConnection {
        let transport = try await makeTransport(spec, options: options)
        let client = SMPClient(transport: transport, configuration: options.clientConfiguration, clock: options.clock, logger: options.logger)
        return DeviceConnection(spec: spec, transport: transport, client: client)
    }

    /// Connects, runs `body` with the session, and closes the session whether `body` succeeds or throws.
    public func withClient<T>(
        _ spec: ConnectionSpec, options: ConnectionOptions = ConnectionOptions(), _ body: (SMPClient) async throws -> T
    ) async throws -> T {
        let connection = try await connect(spec, options: options)
        do {
            let result = try await body(connection.client)
            await connection.close()
            return result
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Brings `transport` up for `spec`, turning a failure into ``ConnectionError/connectFailed(_:reason:)``;
    /// for connectors.
    public static func open(_ transport: some SMPTransport, spec: ConnectionSpec) async throws(ConnectionError) {
        do {
            try await transport.connect()
        } catch {
            // Whatever the attempt opened (a socket, a controller link) is released.
            await transport.close()
            throw .connectFailed(spec, reason: error)
        }
    }
}

/// What every connection takes besides its spec: packet size, session timing, clock, logging.
public struct ConnectionOptions: Sendable {
    /// The largest SMP packet to send (`--mtu`); `nil` for the transport's default.
    public var maximumPacketSize: Int?
    /// The session's timeout, retries, window and reconnect policy.
    public var clientConfiguration: SMPClient.Configuration
    /// The session's time source (virtual time in tests).
    public var clock: SMPClock
    /// Where the session logs frames (`-v`).
    public var logger: Logger
    /// Whether the BlueZ D-Bus path writes and reads through the `AcquireWrite` / `AcquireNotify`
    /// descriptors when bluetoothd offers them (true), or always through `WriteValue` and
    /// `StartNotify` calls (false: for a bluetoothd or device where acquiring fails).
    public var bluezAcquiresDescriptors: Bool

    /// Makes the options.
    public init(
        maximumPacketSize: Int? = nil, clientConfiguration: SMPClient.Configuration = SMPClient.Configuration(),
        clock: SMPClock = .continuous, logger: Logger = Logger(label: "smp"), bluezAcquiresDescriptors: Bool = true
    ) {
        self.maximumPacketSize = maximumPacketSize
        self.clientConfiguration = clientConfiguration
        self.clock = clock
        self.logger = logger
        self.bluezAcquiresDescriptors = bluezAcquiresDescriptors
    }
}

/// A session to a device and what it was opened from.
public struct DeviceConnection: Sendable {
    /// The spec the connection was made from.
    public let spec: ConnectionSpec
    /// The connected transport under the session.
    public let transport: any SMPTransport
    /// The session.
    public let client: SMPClient

    /// Closes the session and its transport.
    public func close() async {
        await client.close()
    }
}

/// Why a connection could not be made; `mcumgr` reports every case as a transport error (exit status 3).
public enum ConnectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No connector for this kind of transport is registered with the factory.
    case transportUnavailable(TransportKind)
    /// The transport could not be brought up.
    case connectFailed(ConnectionSpec, reason: SMPTransportError)
    /// A connector was handed a spec of another kind (a registration mistake).
    case unsupported(ConnectionSpec)

    /// What failed, and why.
    public var description: String {
        switch self {
        case .transportUnavailable(let kind):
            return "\(kind) is not available: no connector for it is registered with this connection factory"
        case .connectFailed(.udp(let endpoint), let reason):
            return "cannot reach \(endpoint) over UDP: \(reason)"
        case .connectFailed(.simulator, let reason):
            return "cannot start the built-in simulator: \(reason)"
        case .connectFailed(.serial(let parameters), let reason):
            return "cannot open \(parameters.device): \(reason)"
        case .connectFailed(let spec, .unreachable(let why)):
            return "cannot reach the device over \(spec.kind) (\(spec.connectionString ?? spec.typeName)): \(why)"
        case .connectFailed(let spec, let reason):
            return "cannot reach the device over \(spec.kind) (\(spec.connectionString ?? spec.typeName)): \(reason)"
        case .unsupported(let spec):
            return "no connector for \(spec.kind) connections (\(spec.typeName)) is registered correctly"
        }
    }
}
