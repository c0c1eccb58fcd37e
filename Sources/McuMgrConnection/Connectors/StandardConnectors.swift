import SMP
import SMPSerial
import SMPUDP

extension ConnectionFactory {
    /// The transports of this library: UDP, serial, Bluetooth LE through BlueZ (kind `.ble`:
    /// bluetoothd's D-Bus API when it runs, else the kernel's L2CAP sockets; kind `.bluez`: D-Bus
    /// only) and through our own LE host on an HCI controller (kind `.hci`), each Bluetooth kind
    /// with its scanner. Not the built-in simulator (kind
    /// `.simulator`): a program that offers it registers its connector (as `mcumgr` does).
    public static var standard: ConnectionFactory {
        var factory = ConnectionFactory()
        factory.register(.udp, connector: connectUDP)
        factory.register(.serial, connector: connectSerial)
        factory.register(.ble, connector: connectBlueZ)
        factory.registerScanner(.ble, scanner: scanBlueZ)
        factory.register(.bluez, connector: connectBlueZDBus)
        factory.registerScanner(.bluez, scanner: scanBlueZDBus)
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
}
