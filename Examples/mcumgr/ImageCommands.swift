import ArgumentParser
import McuMgr
import SMP
import McuMgrTools

extension MCUmgr {
    /// `mcumgr image list|upload|test|confirm|erase|slot-info|info`.
    struct Image: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "image", abstract: "Manage the device's firmware images and slots.",
            subcommands: [List.self, Upload.self, Test.self, Confirm.self, Erase.self, SlotInfo.self, Info.self])
    }
}

extension MCUmgr.Image {
    /// `mcumgr image list`.
    struct List: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Show the images in the device's slots.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let slots = try await global.withClient { try await ImageManager(client: $0).list() }
            try global.output.emit(ImageTable(slots)) { ImageTable(slots).text }
        }
    }

    /// `mcumgr image upload FILE [--image N] [--upgrade]`.
    struct Upload: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "upload", abstract: "Upload an MCUboot image (or every image of a DFU package) to the secondary slot.",
            discussion: """
                The image is checked before anything is sent. An interrupted upload resumes where it stopped when \
                the same file is uploaded again. Then 'mcumgr image test HASH' and 'mcumgr reset' run it, or use \
                'mcumgr upgrade FILE' for the whole flow.
                """)

        @Argument(help: "The MCUboot image file (e.g. zephyr.signed.bin), or a DFU package (dfu_application.zip).")
        var file: String

        @Option(name: [.customShort("n"), .customLong("image")], help: "The image number to upload to (0 = application).")
        var image = 0

        @Flag(name: [.customShort("u"), .customLong("upgrade")], help: "Ask the device to refuse an image that is not newer than the running one.")
        var upgrade = false

        @OptionGroup var chunking: UploadOptions

        @OptionGroup var signature: SignatureKeyOptions

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable {
            let ok = true, action = "image-upload"
            let file: String, image: Int, bytes: Int, version: String, hash: String, sha256: String
            let seconds: Double, bytes_per_second: Double
        }

        func validate() throws {
            guard image >= 0 else { throw ValidationError("--image must be 0 or more") }
        }

        func run() async throws {
            if PackageFile.isPackage(file) { return try await uploadPackage() }
            let mcuboot = try InputFile.mcubootImage(file)
            try SignatureKeyFiles.verify(mcuboot, path: file, keys: try signature.keys())
            let start = ContinuousClock.now
            try await global.withClient { client in
                let target = ImageUploadTarget(client: client, image: image, sha: mcuboot.fileSHA256, upgrade: upgrade)
                try await global.upload(mcuboot.bytes, to: target, options: chunking)
            }
            let seconds = start.duration(to: .now).seconds
            let rate = seconds > 0 ? Double(mcuboot.bytes.count) / seconds : 0
            let answer = Answer(
                file: file, image: image, bytes: mcuboot.bytes.count, version: mcuboot.version.deviceString,
                hash: mcuboot.hash.hexString, sha256: mcuboot.fileSHA256.hexString,
                seconds: (seconds * 1000).rounded() / 1000, bytes_per_second: rate.rounded())
            try global.output.emit(answer) {
                """
                Done: uploaded \(file) (\(mcuboot.bytes.count) bytes, version \(mcuboot.version.deviceString)) to image \(image) \
                in \(TextFormat.fixed(seconds, 2)) s (\(TextFormat.rate(rate)))
                hash: \(mcuboot.hash.hexString)
                """
            }
        }

        /// Every image of a DFU package to its image number (those already on the device are not sent
        /// again; of a direct-XIP pair, the one for the slot the device is not running from).
        private func uploadPackage() async throws {
            guard image == 0 else { throw ValidationError("a DFU package gives each image's number: drop --image") }
            let package = try PackageFile.read(file)
            guard !package.isSUIT else {
                throw CommandFailure(.usage, "\(file) holds a SUIT envelope: use 'mcumgr upgrade \(file)', or 'mcumgr suit upload'")
            }
            let keys = try signature.keys()
            for entry in package.images { try SignatureKeyFiles.verify(entry.image, path: "\(file):\(entry.file)", keys: keys) }
            let configuration = FirmwareUpgradeConfiguration(
                mode: .uploadOnly, pipelineDepth: chunking.pipelineDepth, byteAlignment: chunking.alignment, rejectsDowngrade: upgrade,
                chunkTimeout: global.chunkTimeout)
            let output = global.output
            let report = try await global.withClient { client in
                let running = try FirmwareUpgradeManager(client: client).start(package: package, configuration: configuration)
                var displays: [Int: ProgressDisplay] = [:]
                for await event in running.events {
                    if case .uploadProgress(let image, let progress) = event {
                        let display = displays[image] ?? ProgressDisplay(label: "image \(image)", fd: output.progressDescriptor)
                        displays[image] = display
                        display.update(progress)
                    }
                }
                for display in displays.values { display.finish() }
                return try await running.result()
            }
            let seconds = report.uploadDuration.seconds
            let answer = PackageAnswer(
                file: file, uploaded_images: report.uploadedImages, bytes: report.bytesUploaded,
                seconds: (seconds * 1000).rounded() / 1000, bytes_per_second: report.averageBytesPerSecond.rounded())
            try output.emit(answer) {
                "Done: uploaded image\(report.uploadedImages.count == 1 ? "" : "s") \(report.uploadedImages.map(String.init).joined(separator: ", ")) "
                    + "of \(file) (\(report.bytesUploaded) bytes) in \(TextFormat.fixed(seconds, 2)) s\n" + ImageTable(report.slots).text
            }
        }

        private struct PackageAnswer: Encodable {
            let ok = true, action = "image-upload"
            let file: String, uploaded_images: [Int], bytes: Int, seconds: Double, bytes_per_second: Double
        }
    }

    /// `mcumgr image test HASH`.
    struct Test: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "test", abstract: "Mark an image to run once at the next reset (reverted unless confirmed).")

        @Argument(help: "The image's hash, as 'mcumgr image list' shows it.")
        var hash: String

        @OptionGroup var global: GlobalOptions

        func validate() throws { _ = try parseHash(hash) }

        func run() async throws {
            let bytes = try parseHash(hash)
            let slots = try await global.withClient { try await ImageManager(client: $0).test(hash: bytes) }
            try global.output.emit(ImageTable(slots)) { ImageTable(slots).text }
        }
    }

    /// `mcumgr image confirm [HASH]`.
    struct Confirm: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "confirm", abstract: "Make the running image (or the image with HASH) permanent.")

        @Argument(help: "The image's hash; without it, the running image is confirmed.")
        var hash: String?

        @OptionGroup var global: GlobalOptions

        func validate() throws { if let hash { _ = try parseHash(hash) } }

        func run() async throws {
            let bytes = try hash.map(parseHash)
            let slots = try await global.withClient { try await ImageManager(client: $0).confirm(hash: bytes) }
            try global.output.emit(ImageTable(slots)) { ImageTable(slots).text }
        }
    }

    /// `mcumgr image erase [--slot N]`.
    struct Erase: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "erase", abstract: "Erase a slot (default: the secondary slot of the running image).")

        @Option(name: .customLong("slot"), help: "The slot to erase.")
        var slot: Int?

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if let slot, slot < 0 { throw ValidationError("--slot must be 0 or more") }
        }

        func run() async throws {
            try await global.withClient { try await ImageManager(client: $0).erase(slot: slot) }
            try global.output.emit(Done(action: "image-erase", details: ["slot": slot.map { .integer(Int64($0)) } ?? .null])) {
                "Done: erased slot \(slot.map(String.init) ?? "1")"
            }
        }
    }

    /// `mcumgr image slot-info`.
    struct SlotInfo: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "slot-info", abstract: "Show each image's slots and their sizes.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let images = try await global.withClient { try await ImageManager(client: $0).slotInfo() }
            try global.output.emit(ImageSlotInfoResponse(images: images)) {
                DeviceTables.slotInfo(images)
            }
        }
    }
}

/// A 32-byte image hash from hex text; anything else is a usage error.
func parseHash(_ text: String) throws -> [UInt8] {
    guard let bytes = TextFormat.imageHash(text) else {
        throw ValidationError("'\(text)' is not an image hash: expected 64 hex digits, as 'mcumgr image list' shows")
    }
    return bytes
}
