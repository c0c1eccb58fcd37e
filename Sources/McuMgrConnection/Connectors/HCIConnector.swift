import BLEHost
import Logging
import SMP
import SMPBLE

extension ConnectionFactory {
    /// Bluetooth LE through our own LE host on the spec's HCI controller (`--hci`): finds the
    /// device, connects, and runs SMP over GATT on the host's ATT channel.
    @Sendable static func connectHCI(_ spec: ConnectionSpec, _ options: ConnectionOptions) async throws(ConnectionError) -> any SMPTransport {
        guard case .ble(let parameters) = spec, let controller = parameters.controller else { throw .unsupported(spec) }
        let session = HCISession(
            controller: controller, peer: parameters.peer, addressType: parameters.addressType, scanTimeout: .seconds(10),
            clock: options.clock, logger: options.logger)
        let transport = HCIBLETransport(session: session, configuration: bleConfiguration(options), clock: options.clock, logger: options.logger)
        try await open(transport, spec: spec)
        return transport
    }

    /// The SMP devices advertising near the spec's HCI controller.
    @Sendable static func scanHCI(_ spec: ConnectionSpec, _ duration: Duration, _ options: ConnectionOptions) async throws(ConnectionError) -> [DeviceScanResult] {
        guard case .ble(let parameters) = spec, let controller = parameters.controller else { throw .unsupported(spec) }
        let session = HCISession(
            controller: controller, peer: .scan, addressType: nil, scanTimeout: duration, clock: options.clock, logger: options.logger)
        let results: [LEScanResult]
        do {
            results = try await session.scan(for: duration)
        } catch {
            await session.close()
            throw .connectFailed(spec, reason: .unreachable(error.description))
        }
        await session.close()
        return results.map {
            DeviceScanResult(address: $0.address.string, addressType: $0.address.kind == .public ? .public : .random, name: $0.name, rssi: $0.rssi)
        }
    }
}
