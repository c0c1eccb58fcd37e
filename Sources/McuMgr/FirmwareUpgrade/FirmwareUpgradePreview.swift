import Logging

/// What an upgrade would do on a device, read without changing anything: the device's image
/// table, its bootloader's mode, and the upgrade's first plan for them.
public struct FirmwareUpgradePreview: Sendable {
    /// The device's image table.
    public let slots: [ImageSlot]
    /// The bootloader's mode, as configured or reported (`nil`: not known, planned as a swap mode).
    public let bootloader: BootloaderMode?
    /// The first plan: what the upgrade would do before its reset (after it, a test-and-confirm
    /// upgrade confirms what it tested).
    public let plan: FirmwareUpgradePlan
}

extension FirmwareUpgradeManager {
    /// Reads the device's parameters, bootloader mode and image table as an upgrade does, and
    /// returns the upgrade's plan without acting on it (only reads are sent).
    ///
    /// Throws what the upgrade would throw before acting: an invalid image or configuration, an
    /// image number the device lacks, a refused downgrade (with `rejectsDowngrade`), an image a
    /// direct-XIP bootloader would never boot, an upgrade mode the bootloader cannot do, or the
    /// session's error.
    public func preview(
        images: [FirmwareUpgradeImage], configuration: FirmwareUpgradeConfiguration = FirmwareUpgradeConfiguration()
    ) async throws(FirmwareUpgradeError) -> FirmwareUpgradePreview {
        try Self.validate(images: images, configuration: configuration)
        let runner = FirmwareUpgradeRunner(
            client: client, images: images, configuration: configuration, control: UploadControl(), logger: logger,
            onState: { _ in }, onProgress: { _, _ in })
        return try await runner.preview()
    }
}
