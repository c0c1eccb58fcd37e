import Logging
import SMP

extension SMPClient {
    /// Reads the device's buffers for an upgrade, asking again after timeouts until the
    /// configuration's step timeout.
    func negotiateWithRetries(configuration: FirmwareUpgradeConfiguration, logger: Logger) async throws -> SMPDeviceBuffers? {
        let deadline = clock.now + configuration.stepTimeout
        while true {
            do {
                return try await negotiate(reassemblyBufferSize: configuration.reassemblyBufferSize)
            } catch {
                guard case .timeout = error, clock.now < deadline else { throw error }
                logger.debug("no answer to the parameters request yet; asking again")
            }
        }
    }
}
