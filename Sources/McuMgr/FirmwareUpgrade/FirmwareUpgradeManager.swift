import Logging
import SMP

/// Runs firmware upgrades: validate, upload, test, reset, confirm, with the images checked
/// before anything is sent.
public struct FirmwareUpgradeManager: Sendable {
    /// The session to the device.
    public let client: SMPClient
    let logger: Logger

    /// Makes a manager over a session.
    public init(client: SMPClient, logger: Logger = Logger(label: "mcumgr.upgrade")) {
        self.client = client
        self.logger = logger
    }

    /// Checks the images and the configuration, then starts the upgrade in the background.
    ///
    /// Throws at once, with nothing sent, for a malformed image (bad magic, truncated, hash
    /// mismatch), two images with the same index, or an impossible configuration.
    public func start(
        images: [FirmwareUpgradeImage], configuration: FirmwareUpgradeConfiguration = FirmwareUpgradeConfiguration()
    ) throws(FirmwareUpgradeError) -> FirmwareUpgrade {
        try Self.validate(images: images, configuration: configuration)
        return FirmwareUpgrade(client: client, images: images, configuration: configuration, logger: logger)
    }

    /// Runs an upgrade to the end and returns its report.
    public func upgrade(
        images: [FirmwareUpgradeImage], configuration: FirmwareUpgradeConfiguration = FirmwareUpgradeConfiguration()
    ) async throws(FirmwareUpgradeError) -> FirmwareUpgradeReport {
        try await start(images: images, configuration: configuration).result()
    }

    /// Checks images and configuration as ``start(images:configuration:)`` does, sending nothing:
    /// at least one image, distinct non-negative image numbers (or one image per slot of an image number,
    /// for direct-XIP), valid MCUboot images, a workable configuration.
    public static func validate(images: [FirmwareUpgradeImage], configuration: FirmwareUpgradeConfiguration) throws(FirmwareUpgradeError) {
        func invalid(_ why: String) -> FirmwareUpgradeError {
            FirmwareUpgradeError(state: .none, reason: .invalidConfiguration(why))
        }
        guard !images.isEmpty else { throw invalid("no image to upgrade") }
        for index in Set(images.map(\.index)) {
            // Two images for one image number only as a direct-XIP pair, one built for each slot.
            let variants = images.filter { $0.index == index }
            guard variants.count == 1 || (variants.count == 2 && Set(variants.compactMap(\.slot)).count == 2) else {
                throw invalid("two images have the same image index")
            }
            if let slot = variants.compactMap(\.slot).first(where: { !(0...1).contains($0) }) {
                throw invalid("image \(index) is for slot \(slot); an image has slots 0 and 1")
            }
        }
        if let bad = images.first(where: { $0.index < 0 }) { throw invalid("image index \(bad.index) is negative") }
        do throws(UploadError) {
            try configuration.upload.validate()
        } catch {
            throw FirmwareUpgradeError(state: .none, reason: .from(error))
        }
        if let size = configuration.reassemblyBufferSize, size < SMPDeviceBuffers.minimumBufferSize {
            throw invalid("reassembly buffer size \(size) is too small for an upload request")
        }
        for image in images {
            do {
                try image.image.verifyHash()
            } catch {
                throw FirmwareUpgradeError(state: .none, reason: .invalidImage(index: image.index, error))
            }
        }
    }
}
