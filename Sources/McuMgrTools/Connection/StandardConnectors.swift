import Logging
import SMP
import SMPSerial
import SMPSimulator
import SMPUDP

extension ConnectionFactory {
    /// The transports of this build: UDP, serial, the built-in simulator, Bluetooth LE through the
    /// kernel's Bluetooth stack (BlueZ L2CAP sockets, kind `.ble`) and through our own LE host on
    /// an HCI controller (kind `.hci`), each Bluetooth kind with its scanner.
    public static var standard: ConnectionFactory {
        var factory = ConnectionFactory()
        factory.register(.udp, connector: connectUDP)
        factory.register(.serial, connector: connectSerial)
        factory.register(.simulator, connector: connectSimulator)
        factory.register(.ble, connector: connectBlueZ)
        factory.registerScanner(.ble, scanner: scanBlueZ)
        factory.register(.hci, connector: connectHCI)
        factory.registerScanner(.hci, scanner: scanHCI)
        return factory
    }

    /// A serial transport (SMP console framing, or raw) on the spec's tty; `--mtu` fixes the packet size.
    @Sendable static func connectSerial(_ spec: ConnectionSpec, _ options: ConnectionOptions) async throws(ConnectionError) -> any SMPTransport {
        guard case .serial(let parameters) = spec else { throw .unsupported(spec) }
        var serial = SerialConnectionOptions(path: parameters.device)
        if let baud = parameters.baudRate { serial.baudRate = baud }
        if let length = parameters.lineLength { serial.lineLength = length }
        serial.framing = parameters.raw ? .raw : .console
        serial.flowControl = parameters.hardwareFlowControl ? .rtsCts : .none
        serial.packetSize = parameters.maximumPacketSize ?? options.maximumPacketSize
        let transport: SerialTransport
        do {
            transport = try SerialTransport(options: serial, clock: options.clock)
        } catch {
            throw .connectFailed(spec, reason: .io(error.description))
        }
        try await open(transport, spec: spec)
        return transport
    }

    /// A UDP transport (SwiftNIO) to the spec's endpoint, with `--mtu` as its datagram size.
    @Sendable static func connectUDP(_ spec: ConnectionSpec, _ options: ConnectionOptions) async throws(ConnectionError) -> any SMPTransport {
        guard case .udp(let endpoint) = spec else { throw .unsupported(spec) }
        let transport = UDPTransport(
            host: endpoint.host, port: endpoint.port, maximumPacketSize: options.maximumPacketSize ?? UDPTransport.defaultMaximumPacketSize)
        try await open(transport, spec: spec)
        return transport
    }

    /// A fresh built-in simulated device, reached in memory.
    @Sendable static func connectSimulator(_ spec: ConnectionSpec, _ options: ConnectionOptions) async throws(ConnectionError) -> any SMPTransport {
        guard case .simulator = spec else { throw .unsupported(spec) }
        let transport = await BuiltInSimulator.makeTransport(maximumPacketSize: options.maximumPacketSize)
        try await open(transport, spec: spec)
        return transport
    }
}

/// The in-process simulated device behind `--sim`: a fresh `mcumgr-sim` with its defaults
/// (two images running version 1.0.0 in slot 0, empty secondary slots), reached in memory.
/// Nothing it holds outlives the connection.
public enum BuiltInSimulator {
    /// The version of the images the simulated device runs.
    public static let runningVersion = ImageVersion(1, 0, 0)

    /// Makes the device and a loopback transport to it (not yet connected).
    public static func makeTransport(maximumPacketSize: Int?) async -> LoopbackTransport {
        var deviceLogger = Logger(label: "mcumgr.sim")
        deviceLogger.logLevel = .warning
        let device = SimulatedDevice(logger: deviceLogger)
        await device.installRunningImages(version: runningVersion, payloadSize: 65_536)
        return await device.makeLoopbackTransport(maximumPacketSize: maximumPacketSize)
    }
}
