#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import McuMgr
import McuMgrTools

extension MCUmgr {
    /// `mcumgr fs upload|download|status|hash|hashes|close`.
    struct FS: ParsableCommand {
        /// Runs `body`; a device that has no file system mounted where `path` begins fails naming
        /// the path (the device's error names nothing).
        static func naming<T>(_ path: String, _ body: () async throws -> T) async throws -> T {
            do {
                return try await body()
            } catch {
                let failure = CommandFailure(error)
                guard let deviceError = failure.deviceError, deviceError == .fs(.mountPointNotFound) else { throw failure }
                throw CommandFailure(
                    .device,
                    "no file system is mounted where '\(path)' begins (the device answered \(deviceError)); "
                        + "device paths start with a mount point, e.g. /lfs1, mcumgr-sim's",
                    deviceError: deviceError)
            }
        }

        static let configuration = CommandConfiguration(
            commandName: "fs", abstract: "Transfer files to and from the device's file system.",
            subcommands: [Upload.self, Download.self, Status.self, Hash.self, Hashes.self, Close.self])
    }
}

extension MCUmgr.FS {
    /// `mcumgr fs upload LOCAL REMOTE`.
    struct Upload: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "upload", abstract: "Copy a local file to the device.")

        @Argument(help: "The local file.")
        var local: String

        @Argument(help: "The path on the device, e.g. /lfs1/data.bin.")
        var remote: String

        @OptionGroup var chunking: UploadOptions

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let bytes = try InputFile.readNonEmpty(local)
            let start = ContinuousClock.now
            try await MCUmgr.FS.naming(remote) {
                try await global.withClient { client in
                    try await global.upload(bytes, to: FileUploadTarget(client: client, name: remote), options: chunking)
                }
            }
            let transfer = Transfer(action: "fs-upload", local: local, remote: remote, bytes: bytes.count, since: start)
            try global.output.emit(transfer) {
                "Done: uploaded \(bytes.count) bytes to \(remote) in \(TextFormat.fixed(transfer.seconds, 2)) s"
            }
        }
    }

    /// `mcumgr fs download REMOTE LOCAL`.
    struct Download: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "download", abstract: "Copy a file from the device.")

        @Argument(help: "The path on the device.")
        var remote: String

        @Argument(help: "The local file to write ('-' for standard output).")
        var local: String

        @Option(name: .customLong("max-size"), help: ArgumentHelp(
            "Refuse a file the device says is longer than this many bytes (default 64 MiB).", valueName: "bytes"),
            transform: sizeOption("--max-size"))
        var maximumSize = FileSystemManager.defaultMaximumDownloadLength

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard maximumSize >= 0 else { throw ValidationError("--max-size cannot be negative") }
        }

        func run() async throws {
            let start = ContinuousClock.now
            // Ctrl-C or SIGTERM cancels the download, which then removes its partial file.
            let length = try await MCUmgr.FS.naming(remote) { try await Interrupts.cancelling("the download") { try await download() } }
            if local == "-" { return }
            let transfer = Transfer(action: "fs-download", local: local, remote: remote, bytes: length, since: start)
            try global.output.emit(transfer) {
                "Done: downloaded \(length) bytes from \(remote) to \(local) in \(TextFormat.fixed(transfer.seconds, 2)) s"
            }
        }

        /// Downloads the file to `local` (or standard output) and returns its length.
        private func download() async throws -> Int {
            let output = global.output
            let toStandardOutput = local == "-"
            let maximumSize = self.maximumSize
            return try await global.withClient { client -> Int in
                let display = ProgressDisplay(label: "download", fd: toStandardOutput ? Console.standardError : output.progressDescriptor)
                defer { display.finish() }
                let fs = FileSystemManager(client: client)
                let progress: @Sendable (Int, Int) -> Void = { done, total in display.update(bytes: done, total: total) }
                do throws(FileDownloadError) {
                    if toStandardOutput {
                        let bytes = try await fs.download(name: remote, maximumLength: maximumSize, progress: progress)
                        Console.write(String(decoding: bytes, as: UTF8.self), to: Console.standardOutput)
                        return bytes.count
                    }
                    return try await fs.download(
                        name: remote, to: URL(fileURLWithPath: local), maximumLength: maximumSize, progress: progress)
                } catch {
                    throw CommandFailure(error)
                }
            }
        }
    }

    /// `mcumgr fs status REMOTE`.
    struct Status: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "Print a file's size.")

        @Argument(help: "The path on the device.")
        var remote: String

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let name: String, size: Int }

        func run() async throws {
            let size = try await MCUmgr.FS.naming(remote) { try await global.withClient { try await FileSystemManager(client: $0).status(name: remote) } }
            try global.output.emit(Answer(name: remote, size: size)) { "\(remote): \(size) bytes" }
        }
    }

    /// `mcumgr fs hash REMOTE [--type crc32|sha256]`.
    struct Hash: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "hash", abstract: "Have the device hash or checksum a file.")

        @Argument(help: "The path on the device.")
        var remote: String

        @Option(name: .customLong("type"), help: "crc32 or sha256 (see 'mcumgr fs hashes'; default: the device's choice).")
        var type: String?

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let name: String, type: String, offset: Int, length: Int?, output: String }

        func run() async throws {
            let result = try await MCUmgr.FS.naming(remote) { try await global.withClient { try await FileSystemManager(client: $0).hash(name: remote, type: type) } }
            let hex = result.output.description
            try global.output.emit(Answer(name: remote, type: result.type, offset: result.offset, length: result.length, output: hex)) {
                "\(result.type) \(remote)\(result.length.map { " (\($0) bytes)" } ?? ""): \(hex)"
            }
        }
    }

    /// `mcumgr fs hashes`.
    struct Hashes: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "hashes", abstract: "List the hash and checksum types the device supports.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let types = try await global.withClient { try await FileSystemManager(client: $0).supportedHashes() }
            try global.output.emit(SupportedHashesResponse(types: types)) {
                DeviceTables.hashTypes(types)
            }
        }
    }

    /// `mcumgr fs close`.
    struct Close: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "close", abstract: "Close the file the device holds open for a transfer.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withClient { try await FileSystemManager(client: $0).close() }
            try global.output.emit(Done(action: "fs-close")) { "Done" }
        }
    }
}

/// The JSON answer of a file transfer.
private struct Transfer: Encodable {
    let ok = true
    let action: String, local: String, remote: String, bytes: Int, seconds: Double, bytes_per_second: Double

    init(action: String, local: String, remote: String, bytes: Int, since start: ContinuousClock.Instant) {
        let seconds = start.duration(to: .now).seconds
        self.action = action
        self.local = local
        self.remote = remote
        self.bytes = bytes
        self.seconds = (seconds * 1000).rounded() / 1000
        self.bytes_per_second = seconds > 0 ? (Double(bytes) / seconds).rounded() : 0
    }
}
