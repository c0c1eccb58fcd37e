import McuBoot
import SMP

extension FirmwareUpgradeManager {
    /// Checks a DFU package and starts its upgrade: every MCUboot image to its image number in one
    /// upgrade (see ``start(images:configuration:)``), or, for a SUIT package, the envelope uploaded
    /// over the SUIT group, processed by the device, and the images it asks for served from the package.
    public func start(
        package: FirmwarePackage, configuration: FirmwareUpgradeConfiguration = FirmwareUpgradeConfiguration()
    ) throws(FirmwareUpgradeError) -> FirmwareUpgrade {
        guard let envelope = package.envelope?.envelope else {
            return try start(images: FirmwareUpgradeImage.images(of: package), configuration: configuration)
        }
        do throws(UploadError) {
            try configuration.upload.validate()
        } catch {
            throw FirmwareUpgradeError(state: .none, reason: .from(error))
        }
        if !configuration.signatureKeys.isEmpty {
            do {
                try envelope.verifySignature(keys: configuration.signatureKeys)
            } catch {
                throw FirmwareUpgradeError(state: .none, reason: .invalidConfiguration("the SUIT envelope's signature check failed: \(error)"))
            }
        }
        let client = client, logger = logger
        return FirmwareUpgrade(clock: client.clock) { control, onState, onProgress throws(FirmwareUpgradeError) in
            let runner = SUITUpgradeRunner(
                client: client, package: package, envelope: envelope, configuration: configuration, control: control,
                logger: logger, onState: onState, onProgress: onProgress)
            return try await runner.run()
        }
    }

    /// Runs a package's upgrade to the end and returns its report.
    public func upgrade(
        package: FirmwarePackage, configuration: FirmwareUpgradeConfiguration = FirmwareUpgradeConfiguration()
    ) async throws(FirmwareUpgradeError) -> FirmwareUpgradeReport {
        try await start(package: package, configuration: configuration).result()
    }
}
