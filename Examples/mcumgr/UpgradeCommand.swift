import ArgumentParser
import Hex
import McuMgr
import McuMgrTools
import Synchronization

extension MCUmgr {
    /// `mcumgr upgrade FILE… [--image-index N …] [--mode …] …`: the whole firmware upgrade flow.
    struct Upgrade: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "upgrade", abstract: "Upgrade the device's firmware: upload, test, reset and confirm.",
            discussion: """
                Each FILE is an MCUboot image; give its image number as FILE@N or with one --image-index per file \
                (default: the file's position, 0 for the first). Or give one DFU package (an nRF Connect SDK \
                dfu_application.zip): all its images go to their image numbers in one upgrade (all uploaded, all \
                tested, one reset, all confirmed), a direct-XIP package's image for the slot the device is not running \
                from. A SUIT envelope (.suit, or a package holding one) is uploaded over the SUIT group and processed \
                by the device, which may ask for further files of the package. Images already on the device are not sent again. \
                Modes: test-and-confirm (default: the image runs on test and is confirmed once it booted), \
                confirm-only (no revert), test-only (the application must confirm itself), upload-only. \
                Before the first chunk, each image is checked: its signature with --key, and that it fits the device \
                (slot size, image number and dependencies, version with --no-downgrade, security counter). \
                Ctrl-C stops the upgrade and says where it stood (exit 130); running the same command again resumes \
                from where the device stands.
                """)

        @OptionGroup var upgrade: UpgradeOptions

        @OptionGroup var signature: SignatureKeyOptions

        @Flag(name: .customLong("erase-settings"), help: "Erase the application's settings storage before the reset.")
        var eraseSettings = false

        /// `--swap-time`: 0 to a day.
        static let swapTimeOption = DurationOption.seconds(maximum: 86_400)

        @Option(
            name: .customLong("swap-time"),
            help: "Seconds the bootloader is expected to need to swap images (default 0; \(MCUmgr.Upgrade.swapTimeOption.range)).",
            transform: { try MCUmgr.Upgrade.swapTimeOption.parse($0) })
        var swapTime: Duration = .zero

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable {
            let ok = true, action = "upgrade"
            let mode: String, uploaded_images: [Int], bytes_uploaded: Int, seconds: Double, bytes_per_second: Double
            let resets: Int, pipeline_depth: Int, packet_size: Int, images: [ImageSlot]
        }

        func run() async throws {
            let input = try upgrade.input()
            // Signatures are checked here, before connecting (the configuration's signatureKeys
            // stay empty, so the upgrade does not check them a second time).
            let keys = try signature.keys()
            switch input {
            case .images(let images, let names):
                for (name, image) in zip(names, images) {
                    try SignatureKeyFiles.verify(image.image, path: name, keys: keys)
                }
            case .package(let path, let package):
                if let envelope = package.envelope, !keys.isEmpty {
                    try SignatureKeyFiles.verify(envelope.envelope, path: path, keys: keys)
                }
            }
            var configuration = upgrade.configuration(chunkTimeout: global.chunkTimeout)
            configuration.eraseAppSettings = eraseSettings
            configuration.estimatedSwapTime = swapTime
            let output = global.output
            let report = try await global.withClient { client in
                let manager = FirmwareUpgradeManager(client: client)
                let running: FirmwareUpgrade
                switch input {
                case .images(let images, _): running = try manager.start(images: images, configuration: configuration)
                case .package(_, let package): running = try manager.start(package: package, configuration: configuration)
                }
                // Ctrl-C or SIGTERM cancels the upgrade, which then says where it stands.
                let standing = Mutex(UpgradeStanding())
                let interrupts = Interrupts(cancelling: "the upgrade") { running.cancel() }
                defer { interrupts.stop() }
                var displays: [Int: ProgressDisplay] = [:]
                for await event in running.events {
                    switch event {
                    case .stateChanged(let state):
                        standing.withLock { $0.state = state }
                        for display in displays.values { display.finish() }
                        if state != .none { output.note("upgrade: \(state.stepName)") }
                    case .uploadProgress(let image, let progress):
                        standing.withLock { $0.progress[image] = progress }
                        let display = displays[image] ?? ProgressDisplay(label: "image \(image)", fd: output.progressDescriptor)
                        displays[image] = display
                        display.update(progress)
                    case .completed, .failed:
                        for display in displays.values { display.finish() }
                    }
                }
                do {
                    return try await running.result()
                } catch let error as FirmwareUpgradeError {
                    guard case .cancelled = error.reason else { throw error }
                    throw CommandFailure(.interrupted, standing.withLock { $0.interruptedMessage })
                }
            }
            let seconds = report.uploadDuration.seconds
            let answer = Answer(
                mode: upgrade.mode, uploaded_images: report.uploadedImages, bytes_uploaded: report.bytesUploaded,
                seconds: (seconds * 1000).rounded() / 1000, bytes_per_second: report.averageBytesPerSecond.rounded(),
                resets: report.resets, pipeline_depth: report.pipelineDepth, packet_size: report.packetSize,
                images: report.slots)
            try output.emit(answer) { "Done: \(report)\n" + ImageTable(report.slots).text }
        }
    }
}

/// Where an upgrade stood when it was interrupted: its step and each image's upload.
struct UpgradeStanding: Sendable {
    /// The step the upgrade was in.
    var state = FirmwareUpgradeState.none
    /// The last progress of each image's upload, by image number.
    var progress: [Int: UploadProgress] = [:]

    /// What `mcumgr upgrade` prints when Ctrl-C stops it: the step, how far each upload came, and
    /// that running the same command again resumes (the device keeps what it received, and the
    /// planner starts from the device's slot table).
    var interruptedMessage: String {
        let uploads = progress.keys.sorted().compactMap { image -> String? in
            guard let p = progress[image] else { return nil }
            let percent = Int((min(1, p.fraction) * 100).rounded(.down))
            return "image \(image) \(percent)% uploaded (\(p.bytesSent) of \(p.totalBytes) bytes on the device)"
        }
        let where_ = uploads.isEmpty ? "" : ", " + uploads.joined(separator: ", ")
        let resume: String
        switch state {
        case .none, .requestMcuMgrParameters, .bootloaderInfo, .validate:
            resume = "nothing was changed on the device; run the same command again to upgrade"
        case .upload:
            resume = "run the same command again to resume the upload from where the device stands"
        default:
            resume = "run the same command again to resume: it reads the device's slots and finishes the upgrade from there"
        }
        return "upgrade interrupted while \(state.stepName)\(where_); \(resume)"
    }
}
