import ArgumentParser
import McuBoot
import Hex
import McuMgr
import McuMgrTools

/// What `upgrade` and `fleet upgrade` share: the image files and their numbers, the mode, the
/// chunking, the downgrade check and how long a device may take to answer after its reset.
struct UpgradeOptions: ParsableArguments {
    @Argument(help: ArgumentHelp(
        "MCUboot image files, optionally as FILE@IMAGE; or one DFU package (dfu_application.zip) or SUIT envelope (.suit).",
        valueName: "file"))
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
        if files.contains(where: PackageFile.isPackage) {
            guard files.count == 1 else { throw ValidationError("give one DFU package or SUIT envelope alone, not with other files") }
            guard imageIndices.isEmpty else { throw ValidationError("a DFU package gives each image's number: drop --image-index") }
        }
    }

    /// What the files name: MCUboot images, or one DFU package or SUIT envelope.
    enum Input {
        /// Image files, each with the name its signature errors give.
        case images([FirmwareUpgradeImage], names: [String])
        /// A package (zip or `.suit`) at a path.
        case package(String, FirmwarePackage)
    }

    /// The images or the package, read and checked before anything is sent.
    func input() throws -> Input {
        if let path = files.first, files.count == 1, PackageFile.isPackage(path) {
            let package = try PackageFile.read(path)
            if package.isSUIT { return .package(path, package) }
            return .images(FirmwareUpgradeImage.images(of: package), names: package.images.map { "\(path):\($0.file)" })
        }
        return .images(try images(), names: arguments.map(\.path))
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
