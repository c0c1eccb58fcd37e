import ArgumentParser
import McuBoot
import McuMgr
import McuMgrTools
import SMP

extension MCUmgr {
    /// `mcumgr suit list|state|upload|process|poll|cleanup`: nRF Connect SDK's SUIT group (66), nRF54H20.
    struct SUIT: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "suit", abstract: "Manage a SUIT device's manifests (nRF Connect SDK's SUIT group, nRF54H20).",
            discussion: """
                For a whole update use 'mcumgr upgrade FILE.suit' (or the package zip): it uploads the envelope, serves \
                the images the device asks for while processing it, and checks the result.
                """,
            subcommands: [List.self, State.self, Upload.self, Process.self, Poll.self, Cleanup.self])
    }
}

extension SUITManifestRole: ExpressibleByArgument {
    /// Reads `0x20` or `32`.
    public init?(argument: String) {
        let value = argument.lowercased().hasPrefix("0x") ? UInt32(argument.dropFirst(2), radix: 16) : UInt32(argument)
        guard let value else { return nil }
        self.init(rawValue: value)
    }
}

/// One role and its state, in JSON.
private struct ManifestRecord: Encodable {
    let role: UInt32, name: String?, installed: Bool, sequence_number: UInt64?, semantic_version: String?
    let digest: String?, class_id: String?, vendor_id: String?

    init(_ role: SUITManifestRole, _ state: SUITManifestState) {
        self.role = role.rawValue
        name = role.name
        installed = state.isInstalled
        sequence_number = state.sequenceNumber
        semantic_version = state.versionText
        digest = state.digest?.hexString
        class_id = state.classID.map(SUITManifestState.uuidText)
        vendor_id = state.vendorID.map(SUITManifestState.uuidText)
    }

    /// The record as lines of text.
    var text: String {
        var lines = ["role \(SUITManifestRole(rawValue: role))"]
        if let class_id { lines.append("  class ID:  \(class_id)") }
        if let vendor_id { lines.append("  vendor ID: \(vendor_id)") }
        guard installed else { return (lines + ["  not installed, or damaged"]).joined(separator: "\n") }
        if let digest { lines.append("  digest: \(digest)") }
        if let sequence_number { lines.append("  sequence number: \(sequence_number)") }
        if let semantic_version { lines.append("  semantic version: \(semantic_version)") }
        return lines.joined(separator: "\n")
    }
}

extension MCUmgr.SUIT {
    /// `mcumgr suit list`.
    struct List: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the device's manifest roles with their sequence numbers and versions.")

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let manifests: [ManifestRecord] }

        func run() async throws {
            let manifests = try await global.withClient { try await SUITManager(client: $0).manifests() }
            let records = manifests.map { ManifestRecord($0.role, $0.state) }
            try global.output.emit(Answer(manifests: records)) {
                records.map { record in
                    let state = record.installed
                        ? "sequence number \(record.sequence_number.map(String.init) ?? "?")" + (record.semantic_version.map { ", version \($0)" } ?? "")
                        : "not installed"
                    return "\(SUITManifestRole(rawValue: record.role)): \(state)"
                }.joined(separator: "\n")
            }
        }
    }

    /// `mcumgr suit state ROLE…`.
    struct State: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "state", abstract: "Show the manifest state of roles (default: every role the device lists).")

        @Argument(help: ArgumentHelp("Roles, as 0x20 or 32.", valueName: "role"))
        var roles: [SUITManifestRole] = []

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let manifests: [ManifestRecord] }

        func run() async throws {
            let records = try await global.withClient { client in
                let manager = SUITManager(client: client)
                var records: [ManifestRecord] = []
                for role in roles.isEmpty ? try await manager.roles() : roles {
                    records.append(ManifestRecord(role, try await manager.state(of: role)))
                }
                return records
            }
            try global.output.emit(Answer(manifests: records)) { records.map(\.text).joined(separator: "\n\n") }
        }
    }

    /// `mcumgr suit upload FILE [--defer-install]`.
    struct Upload: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "upload", abstract: "Upload a SUIT envelope (the device then processes it, unless --defer-install).")

        @Argument(help: "The SUIT envelope file (.suit).")
        var file: String

        @Flag(name: .customLong("defer-install"), help: "Store the envelope without processing it ('mcumgr suit process' starts it).")
        var deferInstall = false

        @OptionGroup var chunking: UploadOptions

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable {
            let ok = true, action = "suit-upload"
            let file: String, bytes: Int, sequence_number: UInt64, digest: String, deferred: Bool
        }

        func run() async throws {
            let bytes = try InputFile.readNonEmpty(file)
            let envelope: SUITEnvelope
            do {
                envelope = try SUITEnvelope(bytes: bytes)
            } catch {
                throw CommandFailure(.input, "\(file): \(error)")
            }
            try await global.withClient { client in
                try await global.upload(bytes, to: SUITUploadTarget(client: client, kind: .envelope(deferInstall: deferInstall)), options: chunking)
            }
            let answer = Answer(
                file: file, bytes: bytes.count, sequence_number: envelope.sequenceNumber, digest: envelope.digest.bytes.hexString,
                deferred: deferInstall)
            try global.output.emit(answer) {
                "Done: uploaded \(file) (\(bytes.count) bytes, sequence number \(envelope.sequenceNumber))"
                    + (deferInstall ? "; start processing with 'mcumgr suit process'" : "; poll with 'mcumgr suit poll'")
            }
        }
    }

    /// `mcumgr suit process`.
    struct Process: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "process", abstract: "Start processing an envelope uploaded with --defer-install.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withClient { try await SUITManager(client: $0).processEnvelope() }
            try global.output.emit(Done(action: "suit-process")) { "Done: the device processes the envelope" }
        }
    }

    /// `mcumgr suit poll`.
    struct Poll: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "poll", abstract: "Ask whether the device, processing an envelope, wants an image.")

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let requested: Bool, session_id: UInt32?, resource: String? }

        func run() async throws {
            let request = try await global.withClient { try await SUITManager(client: $0).poll() }
            let answer = Answer(requested: request.isRequest, session_id: request.sessionID, resource: request.resourceID)
            try global.output.emit(answer) {
                request.isRequest ? "the device asks for \(request.resourceID ?? "?") (session \(request.sessionID ?? 0))" : "the device asks for nothing"
            }
        }
    }

    /// `mcumgr suit cleanup`.
    struct Cleanup: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "cleanup", abstract: "Erase the device's DFU and SUIT cache partitions.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withClient { try await SUITManager(client: $0).cleanup() }
            try global.output.emit(Done(action: "suit-cleanup")) { "Done: DFU and cache partitions erased" }
        }
    }
}
