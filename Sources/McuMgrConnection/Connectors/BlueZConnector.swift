import GATT
import Logging
import SMP
import SMPBLE

extension ConnectionFactory {
    /// How long `--ble NAME` (or an address without `--ble-type`) scans for the device's advertisement.
    static let blueZScanTimeout: Duration = .seconds(10)

    /// Bluetooth LE through BlueZ (`--ble` without `--hci`): through bluetoothd's D-Bus API when
    /// the spec names no stack, asks for no security level and bluetoothd answers on the system bus;
    /// else through the kernel: an L2CAP LE socket on the ATT channel from the spec's adapter, SMP over
    /// GATT on it. A device named by its advertised name, or by an address without a type, is found
    /// by a scan first.
    @Sendable static func connectBlueZ(_ spec: ConnectionSpec, _ options: ConnectionOptions) async throws(ConnectionError) -> any SMPTransport {
        guard case .ble(let parameters) = spec, parameters.controller == nil else { throw .unsupported(spec) }
        if parameters.stack == nil, parameters.security == nil, await BlueZDBusTransport.bluetoothdIsRunning() {
            options.logger.info("bluetoothd answers on the system bus: connecting through its D-Bus API")
            return try await connectBlueZDBus(spec, options)
        }
        return try await connectBlueZSocket(spec, options)
    }

    /// Bluetooth LE through bluetoothd's D-Bus API (`--bluez`, `stack=dbus`): discovery, connect,
    /// the SMP characteristic's acquired descriptors. No privileges needed.
    @Sendable static func connectBlueZDBus(_ spec: ConnectionSpec, _ options: ConnectionOptions) async throws(ConnectionError) -> any SMPTransport {
        guard case .ble(let parameters) = spec, parameters.controller == nil else { throw .unsupported(spec) }
        var configuration = BlueZDBusTransport.Configuration(
            peer: parameters.peer, addressType: parameters.addressType, adapter: parameters.adapter, scanTimeout: blueZScanTimeout)
        if let size = options.maximumPacketSize { configuration.reassemblyBufferSize = size }
        configuration.acquiresDescriptors = options.bluezAcquiresDescriptors
        let transport = BlueZDBusTransport(configuration: configuration, clock: options.clock, logger: options.logger)
        try await open(transport, spec: spec)
        return transport
    }

    /// The SMP devices bluetoothd's discovery reports through the spec's adapter.
    @Sendable static func scanBlueZDBus(_ spec: ConnectionSpec, _ duration: Duration, _ options: ConnectionOptions) async throws(ConnectionError) -> [DeviceScanResult] {
        guard case .ble(let parameters) = spec, parameters.controller == nil else { throw .unsupported(spec) }
        let results: [BLEScanResult]
        do {
            results = try await BlueZDBusTransport.scan(adapter: parameters.adapter, duration: duration, clock: options.clock)
        } catch {
            throw .connectFailed(spec, reason: .unreachable(error.description))
        }
        return results.map {
            DeviceScanResult(
                address: $0.address.string, addressType: $0.address.type == .public ? .public : .random, name: $0.name, rssi: $0.rssi == 127 ? nil : $0.rssi)
        }
    }

    /// Bluetooth LE through the kernel's sockets only (`--ble-socket`, `stack=socket`).
    @Sendable static func connectBlueZSocket(_ spec: ConnectionSpec, _ options: ConnectionOptions) async throws(ConnectionError) -> any SMPTransport {
        guard case .ble(let parameters) = spec, parameters.controller == nil else { throw .unsupported(spec) }
        let resolver = BlueZPeerResolver(parameters: parameters, clock: options.clock, logger: options.logger)
        let security = BLESecurityLevel(rawValue: (parameters.security ?? .low).rawValue) ?? .low
        let connector = BLEConnector(resolver.description) { () async throws(BLEError) -> any ATTBearer in
            let address = try await resolver.address()
            return try await BLEConnector.bluez(
                address: address, adapter: parameters.adapter, security: security, timeout: .seconds(10), clock: options.clock
            ).makeBearer()
        }
        let transport = BLETransport(connector: connector, configuration: bleConfiguration(options), clock: options.clock, logger: options.logger)
        try await open(transport, spec: spec)
        return transport
    }

    /// SMP over GATT as the options ask: `--mtu` is the device's reassembly buffer (the largest SMP packet).
    static func bleConfiguration(_ options: ConnectionOptions) -> BLETransport.Configuration {
        var configuration = BLETransport.Configuration()
        if let size = options.maximumPacketSize { configuration.reassemblyBufferSize = size }
        return configuration
    }

    /// The SMP devices advertising near the spec's BlueZ adapter: bluetoothd's discovery when it
    /// answers on the system bus (and the spec names no stack), else libbluetooth's HCI scan.
    @Sendable static func scanBlueZ(_ spec: ConnectionSpec, _ duration: Duration, _ options: ConnectionOptions) async throws(ConnectionError) -> [DeviceScanResult] {
        guard case .ble(let parameters) = spec, parameters.controller == nil else { throw .unsupported(spec) }
        if parameters.stack == nil, await BlueZDBusTransport.bluetoothdIsRunning() {
            return try await scanBlueZDBus(spec, duration, options)
        }
        let results: [BLEScanResult]
        do {
            results = try await BLEScanner.scan(adapter: parameters.adapter, duration: duration, clock: options.clock)
        } catch {
            throw .connectFailed(spec, reason: .unreachable(error.description))
        }
        return results.map {
            // HCI reports RSSI 127 when the controller has none (btvirt's emulator, for one).
            DeviceScanResult(
                address: $0.address.string, addressType: $0.address.type == .public ? .public : .random, name: $0.name, rssi: $0.rssi == 127 ? nil : $0.rssi)
        }
    }
}

/// Turns a `--ble` peer into a BlueZ device address: an address with a known type as it is;
/// otherwise a scan that runs until it sees a matching advertisement (which also tells the address type).
struct BlueZPeerResolver: Sendable, CustomStringConvertible {
    let parameters: BLEConnectionParameters
    let clock: SMPClock
    let logger: Logger

    /// The adapter, for messages: `hci0`, or `the default adapter`.
    private var adapter: String { parameters.adapter ?? "the default adapter" }

    var description: String { BLEPeerSearch.describe(parameters.peer) + (parameters.adapter.map { " via \($0)" } ?? "") }

    /// The address to connect to, scanning (until the device is seen) when the spec does not give it whole.
    func address() async throws(BLEError) -> BluetoothDeviceAddress {
        switch try BLEPeerSearch(parameters.peer, addressType: parameters.addressType) {
        case .address(let bytes, let type):
            return BluetoothDeviceAddress(bytes: bytes, type: type == .public ? .public : .random)
        case .scan(let what, _, let matches):
            // BlueZ's scan lists only the devices that advertise the SMP service.
            let timeout = ConnectionFactory.blueZScanTimeout
            let found = try await BLEScanner.scan(adapter: parameters.adapter, duration: timeout, clock: clock) { results in
                results.contains { matches($0.address.bytes, $0.name) }
            }
            guard let match = found.filter({ matches($0.address.bytes, $0.name) }).max(by: { $0.rssi < $1.rssi }) else {
                throw BLEPeerSearch.notFound(what, within: timeout, via: adapter)
            }
            logger.info("found \(match.address) \(match.name ?? "")")
            return match.address
        }
    }
}
