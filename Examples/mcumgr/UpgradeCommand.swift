import ArgumentParser
import McuMgr
import McuMgrTools

extension MCUmgr {
    /// `mcumgr upgrade FILE… [--image-index N …] [--mode …] …`: the whole firmware upgrade flow.
    struct Upgrade: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "upgrade", abstract: "Upgrade the device's firmware: upload, test, reset and confirm.",
            discussion: """
                Each FILE is an MCUboot image; give its image number as FILE@N or with one --image-index per file \
                (default: the file's position, 0 for the first). Images already on the device are not sent again. \
                Modes: test-and-confirm (default: the image runs on test and is confirmed once it booted), \
                confirm-only (no revert), test-only (the application must confirm itself), upload-only. \
                Before the first chunk, each image is checked: its signature with --key, and that it fits the device \
                (slot size, image number and dependencies, version with --no-downgrade, security counter).
                """)

        @Argument(help: ArgumentHelp("MCUboot image files, optionally as FILE@IMAGE.", valueName: "file"))
        var files: [String]

        @Option(name: .customLong("image-index"), help: "The image number of each file, in order (repeat per file).")
        var imageIndices: [Int] = []

        @Option(name: .customLong("mode"), help: "test-and-confirm, confirm-only, test-only or upload-only.")
        var mode = FirmwareUpgradeMode.testAndConfirm.rawValue

        @OptionGroup var chunking: UploadOptions

        @OptionGroup var signature: SignatureKeyOptions

        @Flag(name: .customLong("no-downgrade"), help: "Refuse an image that is not newer than the running one.")
        var noDowngrade = false

        @Flag(name: .customLong("erase-settings"), help: "Erase the application's settings storage before the reset.")
        var eraseSettings = false

        @Option(name: .customLong("swap-time"), help: "Seconds the bootloader is expected to need to swap images.")
        var swapTime: Double = 0

        @Option(name: .customLong("reset-timeout"), help: "Seconds to wait for the device to answer again after the reset.")
        var resetTimeout: Double = 60

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable {
            let ok = true, action = "upgrade"
            let mode: String, uploaded_images: [Int], bytes_uploaded: Int, seconds: Double, bytes_per_second: Double
            let resets: Int, pipeline_depth: Int, packet_size: Int, images: [ImageSlot]
        }

        func validate() throws {
            guard FirmwareUpgradeMode(rawValue: mode) != nil else {
                throw ValidationError("--mode must be test-and-confirm, confirm-only, test-only or upload-only, not '\(mode)'")
            }
            let plain = files.filter { ImageFileArgument($0).imageIndex == nil }
            guard imageIndices.isEmpty || imageIndices.count == plain.count else {
                throw ValidationError("give one --image-index per file without @N (\(plain.count)), not \(imageIndices.count)")
            }
            if imageIndices.contains(where: { $0 < 0 }) { throw ValidationError("--image-index must be 0 or more") }
            guard swapTime >= 0, resetTimeout > 0 else { throw ValidationError("--swap-time must be 0 or more and --reset-timeout more than 0") }
        }

        func run() async throws {
            let arguments = files.map { ImageFileArgument($0) }
            let images = try ImageFileArgument.upgradeImages(arguments, explicitIndices: imageIndices)
            let keys = try signature.keys()
            for (argument, image) in zip(arguments, images) {
                try SignatureKeyFiles.verify(image.image, path: argument.path, keys: keys)
            }
            let configuration = FirmwareUpgradeConfiguration(
                mode: FirmwareUpgradeMode(rawValue: mode)!, pipelineDepth: chunking.pipelineDepth, byteAlignment: chunking.alignment,
                eraseAppSettings: eraseSettings, estimatedSwapTime: .seconds(swapTime), resetTimeout: .seconds(resetTimeout),
                rejectsDowngrade: noDowngrade, chunkTimeout: global.chunkTimeout, signatureKeys: keys)
            let output = global.output
            let report = try await global.withClient { client in
                let upgrade = try FirmwareUpgradeManager(client: client).start(images: images, configuration: configuration)
                var displays: [Int: ProgressDisplay] = [:]
                for await event in upgrade.events {
                    switch event {
                    case .stateChanged(let state):
                        for display in displays.values { display.finish() }
                        if state != .none { output.note("upgrade: \(state)") }
                    case .uploadProgress(let image, let progress):
                        let display = displays[image] ?? ProgressDisplay(label: "image \(image)", fd: output.progressDescriptor)
                        displays[image] = display
                        display.update(progress)
                    case .completed, .failed:
                        for display in displays.values { display.finish() }
                    }
                }
                return try await upgrade.result()
            }
            let seconds = report.uploadDuration.seconds
            let answer = Answer(
                mode: mode, uploaded_images: report.uploadedImages, bytes_uploaded: report.bytesUploaded,
                seconds: (seconds * 1000).rounded() / 1000, bytes_per_second: report.averageBytesPerSecond.rounded(),
                resets: report.resets, pipeline_depth: report.pipelineDepth, packet_size: report.packetSize,
                images: report.slots)
            try output.emit(answer) { "Done: \(report)\n" + ImageTable(report.slots).text }
        }
    }
}
