import ArgumentParser
import Hex
import McuMgr
import McuMgrTools

/// What `upgrade` and `fleet upgrade` share: the image files and their numbers, the mode, the
/// chunking, the downgrade check and how long a device may take to answer after its reset.
struct UpgradeOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("MCUboot image files, optionally as FILE@IMAGE.", valueName: "file"))
    var files: [String]

    @Option(name: .customLong("image-index"), help: "The image number of each file, in order (repeat per file).")
    var imageIndices: [Int] = []

    @Option(name: .customLong("mode"), help: "test-and-confirm, confirm-only, test-only or upload-only.")
    var mode = FirmwareUpgradeMode.testAndConfirm.rawValue

    @OptionGroup var chunking: UploadOptions

    @Flag(name: .customLong("no-downgrade"), help: "Refuse an image that is not newer than the running one.")
    var noDowngrade = false

    /// `--reset-timeout`: more than 0 and at most a day.
    static let resetTimeoutOption = DurationOption.seconds(maximum: 86_400, allowsZero: false)

    @Option(
        name: .customLong("reset-timeout"),
        help: "Seconds to wait for a device to answer again after its reset (default 60; \(UpgradeOptions.resetTimeoutOption.range)).",
        transform: { try UpgradeOptions.resetTimeoutOption.parse($0) })
    var resetTimeout: Duration = .seconds(60)

    func validate() throws {
        guard FirmwareUpgradeMode(rawValue: mode) != nil else {
            throw ValidationError("--mode must be test-and-confirm, confirm-only, test-only or upload-only, not '\(mode)'")
        }
        let plain = arguments.filter { $0.imageIndex == nil }
        guard imageIndices.isEmpty || imageIndices.count == plain.count else {
            throw ValidationError("give one --image-index per file without @N (\(plain.count)), not \(imageIndices.count)")
        }
        if imageIndices.contains(where: { $0 < 0 }) { throw ValidationError("--image-index must be 0 or more") }
    }

    /// The files as named (`FILE` or `FILE@N`).
    var arguments: [ImageFileArgument] { files.map { ImageFileArgument($0) } }

    /// The images, read and checked, each with its image number.
    func images() throws -> [FirmwareUpgradeImage] {
        try ImageFileArgument.upgradeImages(arguments, explicitIndices: imageIndices)
    }

    /// The upgrade's configuration as these options give it (the rest at its defaults).
    func configuration(chunkTimeout: Duration) -> FirmwareUpgradeConfiguration {
        FirmwareUpgradeConfiguration(
            mode: FirmwareUpgradeMode(rawValue: mode)!, pipelineDepth: chunking.pipelineDepth, byteAlignment: chunking.alignment,
            resetTimeout: resetTimeout, rejectsDowngrade: noDowngrade, chunkTimeout: chunkTimeout)
    }
}
