import SMPTestSupport
import Logging
import McuMgr
import SMP
import SMPSimulator
import SMPUDP

extension UDPEndpoint {
    /// Parses a device's address for a client: as `UDPEndpoint(_:)`, ignoring trailing spaces and refusing port 0.
    init?(device text: String) {
        guard let endpoint = UDPEndpoint(text.trimmingTrailingSpaces()), endpoint.port != 0 else { return nil }
        self = endpoint
    }
}

/// Where the device is.
enum ConnectionTarget: Sendable, Equatable {
    /// A device (or `mcumgr-sim`) over UDP.
    case udp(UDPEndpoint)
    /// A device over Bluetooth LE, by address or name.
    case ble(String)
    /// The first SMP device a Bluetooth LE scan finds.
    case bleScan
    /// A device on a serial port.
    case serial(String)
    /// The built-in simulated device; `implicit` when no connection was named.
    case simulator(implicit: Bool)

    /// Makes a target from a Go-style type and connection string (`udp` + `[127.0.0.1]:1337`).
    static func parse(type: String, connString: String?) throws -> ConnectionTarget {
        switch type.lowercased() {
        case "udp", "oic_udp":
            guard let text = connString else { throw Failure(.usage, "--conntype udp needs --connstring HOST:PORT") }
            guard let address = UDPEndpoint(device: text) else {
                throw Failure(.usage, "'\(text)' is not a UDP address; use HOST:PORT, [HOST]:PORT or [IPv6]:PORT")
            }
            return .udp(address)
        case "ble", "oic_ble", "bll":
            return connString.map { .ble($0) } ?? .bleScan
        case "serial", "oic_serial":
            return .serial(connString ?? "")
        case "sim", "simulator":
            return .simulator(implicit: false)
        default:
            throw Failure(.usage, "unknown connection type '\(type)'; use udp, ble or sim")
        }
    }

    /// The profile form of the target: a type and a connection string.
    var profile: ConnectionProfile {
        switch self {
        case .udp(let address): return ConnectionProfile(type: "udp", connstring: address.description)
        case .ble(let address): return ConnectionProfile(type: "ble", connstring: address)
        case .bleScan: return ConnectionProfile(type: "ble", connstring: nil)
        case .serial(let port): return ConnectionProfile(type: "serial", connstring: port)
        case .simulator: return ConnectionProfile(type: "sim", connstring: nil)
        }
    }
}

extension GlobalOptions {
    /// The target the options name; the built-in simulator when they name none.
    func target() throws -> ConnectionTarget {
        if let udp {
            guard let address = UDPEndpoint(device: udp) else { throw Failure(.usage, "--udp expects HOST[:PORT] or [IPv6]:PORT") }
            return .udp(address)
        }
        if let ble { return .ble(ble) }
        if bleScan { return .bleScan }
        if sim { return .simulator(implicit: false) }
        if connType != nil || connString != nil {
            return try ConnectionTarget.parse(type: connType ?? "udp", connString: connString)
        }
        if let profile {
            let store = ProfileStore()
            guard let saved = try store.load()[profile] else {
                throw Failure(.usage, "no connection profile named '\(profile)' in \(store.path); list them with 'mcumgr conn show'")
            }
            return try ConnectionTarget.parse(type: saved.type, connString: saved.connstring)
        }
        return .simulator(implicit: true)
    }

    /// Connects, runs `body` with a session to the device, and closes the session.
    func withClient<T>(_ body: (SMPClient) async throws -> T) async throws -> T {
        let client = try await connect()
        do {
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }

    /// Opens a session to the target.
    func connect() async throws -> SMPClient {
        let configuration = SMPClient.Configuration(timeout: .seconds(effectiveTimeout), retries: effectiveRetries)
        let logger = Logger(label: "smp")
        switch try target() {
        case .udp(let address):
            let transport = UDPTransport(
                host: address.host, port: address.port, maximumPacketSize: mtu ?? UDPTransport.defaultMaximumPacketSize)
            do {
                try await transport.connect()
            } catch {
                throw Failure(.transport, "cannot reach \(address) over UDP: \(error)")
            }
            return SMPClient(transport: transport, configuration: configuration, logger: logger)
        case .ble, .bleScan:
            throw Failure(.transport, "Bluetooth LE is not available in this build of mcumgr yet; use --udp HOST[:PORT], or --sim to try the built-in simulator")
        case .serial:
            throw Failure(.transport, "serial ports are not available in this build of mcumgr yet; use --udp HOST[:PORT], or --sim to try the built-in simulator")
        case .simulator(let implicit):
            Console.err(implicit
                ? "mcumgr: no connection named: talking to the built-in simulated device (--sim); use --udp HOST[:PORT] or -c NAME for a real one"
                : "mcumgr: talking to the built-in simulated device (--sim)")
            let transport = await BuiltInSimulator.makeTransport(maximumPacketSize: mtu)
            do {
                try await transport.connect()
            } catch {
                throw Failure(.transport, "cannot start the built-in simulator: \(error)")
            }
            return SMPClient(transport: transport, configuration: configuration, logger: logger)
        }
    }
}

/// The in-process simulated device behind `--sim`: a fresh `mcumgr-sim` with its defaults
/// (two images running version 1.0.0 in slot 0, empty secondary slots), reached in memory.
/// Nothing it holds outlives the command.
enum BuiltInSimulator {
    /// The version of the images the simulated device runs.
    static let runningVersion = ImageVersion(1, 0, 0)

    /// Makes the device and a loopback transport to it.
    static func makeTransport(maximumPacketSize: Int?) async -> LoopbackTransport {
        var deviceLogger = Logger(label: "mcumgr.sim")
        deviceLogger.logLevel = .warning
        let device = SimulatedDevice(logger: deviceLogger)
        await device.installRunningImages(version: runningVersion, payloadSize: 65_536)
        return await device.makeLoopbackTransport(maximumPacketSize: maximumPacketSize)
    }
}
