import BLEHost
import GATT
import Logging
import SMP
import Synchronization

/// Our own LE host on one HCI controller, for one device: opens the controller on first use,
/// finds the device (by address, by name, or the first that advertises the SMP service), and makes
/// a new ATT bearer on every (re)connection. ``HCIBLETransport`` closes it with the transport.
///
/// ```swift
/// let session = HCISession(controller: .tcp(host: "127.0.0.1", port: 9001), peer: .name("smp-sim"))
/// let transport = HCIBLETransport(session: session)
/// try await transport.connect()
/// ```
public final class HCISession: Sendable, CustomStringConvertible {
    /// The controller the host runs on.
    public let controller: HCIController
    /// The device: by address, by advertised name, or the first that advertises the SMP service.
    public let peer: BLEPeer
    /// The address's type when known (no scan is needed for an address then).
    public let addressType: BLEAddressType?
    /// How long finding the device may take.
    public let scanTimeout: Duration
    private let clock: SMPClock
    private let logger: Logger
    private let state = Mutex<State>(State())
    private let gate = AsyncGate()

    private struct State {
        var host: LEHost?
        var address: LEAddress?
        var connection: LEConnection?
        var closed = false
    }

    /// Makes a session; nothing is opened until the first bearer or scan.
    public init(
        controller: HCIController, peer: BLEPeer, addressType: BLEAddressType? = nil, scanTimeout: Duration = .seconds(10),
        clock: SMPClock = .continuous, logger: Logger = Logger(label: "smp.ble")
    ) {
        self.controller = controller
        self.peer = peer
        self.addressType = addressType
        self.scanTimeout = scanTimeout
        self.clock = clock
        self.logger = logger
    }

    /// What the session connects to, for messages: `the SMP device named 'smp-sim' via tcp:127.0.0.1:9001`.
    public var description: String { "\(BLEPeerSearch.describe(peer)) via \(controller)" }

    /// The security the device asked for that the host cannot give, seen on the last connection.
    public var securityRequired: String? { state.withLock { $0.connection?.securityRequired } }

    /// Opens (once) the controller and its host.
    func host() async throws(BLEError) -> LEHost {
        try await gate.withGate { () async throws(BLEError) -> LEHost in
            // A host whose controller link ended is replaced (the controller restarted, the TCP link broke).
            if let host = state.withLock({ $0.host }), !host.isClosed { return host }
            if state.withLock({ $0.closed }) { throw .io("the connection was closed") }
            let host = LEHost(transport: try await controller.openTransport(logger: logger), clock: HostClock(clock, taskExecutor: clock.taskExecutor), logger: logger)
            do throws(LEHostError) {
                try await host.start()
            } catch {
                await host.close()
                throw Self.bleError(error)
            }
            let keep = state.withLock { s -> Bool in
                guard !s.closed else { return false }
                s.host = host
                return true
            }
            guard keep else {
                await host.close()
                throw .io("the connection was closed")
            }
            return host
        }
    }

    /// Finds the device (once; reconnections reuse its address) and connects: a fresh ATT bearer.
    public func makeBearer() async throws(BLEError) -> any ATTBearer {
        let host = try await host()
        let address = try await resolve(host)
        do {
            let connection = try await host.connect(to: address)
            state.withLock { $0.connection = connection }
            return connection.attBearer
        } catch {
            throw Self.bleError(error)
        }
    }

    private func resolve(_ host: LEHost) async throws(BLEError) -> LEAddress {
        if let known = state.withLock({ $0.address }) { return known }
        let address: LEAddress
        switch try BLEPeerSearch(peer, addressType: addressType) {
        case .address(let bytes, let type):
            address = LEAddress(bytes: bytes, kind: type == .public ? .public : .random)!
        case .scan(let what, let smpServiceOnly, let matches):
            let found: LEScanResult?
            do {
                found = try await host.find(service: smpServiceOnly ? BLETransport.serviceUUID : nil, within: scanTimeout) {
                    matches($0.address.bytes, $0.name)
                }
            } catch {
                throw Self.bleError(error)
            }
            guard let found else { throw BLEPeerSearch.notFound(what, within: scanTimeout, via: controller.description) }
            logger.info("found \(found.address) \(found.name ?? "")")
            address = found.address
        }
        state.withLock { $0.address = address }
        return address
    }

    /// The devices advertising the SMP service, each once, from a scan of `duration`.
    public func scan(for duration: Duration) async throws(BLEError) -> [LEScanResult] {
        let host = try await host()
        do {
            return try await host.scan(for: duration, service: BLETransport.serviceUUID)
        } catch {
            throw Self.bleError(error)
        }
    }

    /// Disconnects and closes the controller; later bearers and scans fail.
    public func close() async {
        let host = state.withLock { s -> LEHost? in
            s.closed = true
            defer { s.host = nil }
            return s.host
        }
        await host?.close()
    }

    /// The host's errors in the terms of `SMPBLE`.
    static func bleError(_ error: LEHostError) -> BLEError {
        switch error {
        case .transport(.bluetoothUnavailable(let text)): return .bluetoothUnavailable(text)
        case .transport(.permissionDenied(let text)): return .permissionDenied(text)
        case .transport(.noAdapter(let text)): return .noAdapter(text)
        case .transport(let other): return .io(other.description)
        case .connectTimeout: return .timeout(error.description)
        case .connectFailed: return .refused(error.description)
        case .notFound: return .hostDown(error.description)
        default: return .io(error.description)
        }
    }
}
