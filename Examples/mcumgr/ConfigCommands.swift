import ArgumentParser
import McuMgr
import McuMgrConnection
import McuMgrTools

extension MCUmgr {
    /// `mcumgr config read|write|delete NAME [VALUE] | commit | load | save` (Go: `config NAME [VALUE]`).
    struct Config: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config", abstract: "Read and write the device's settings.",
            discussion: "Values are text by default; with --hex they are hex bytes (e.g. 01ff). 'config NAME' reads, 'config NAME VALUE' writes.",
            subcommands: [Read.self, Write.self, Delete.self, Commit.self, Load.self, Save.self])
    }
}

extension MCUmgr.Config {
    /// `mcumgr config read NAME [--hex]`.
    struct Read: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "read", abstract: "Print a setting's value.")

        @Argument(help: "The setting's name, e.g. app/greeting.")
        var name: String

        @Flag(name: .customLong("hex"), help: "Print the value as hex bytes.")
        var hex = false

        @Option(name: .customLong("max-size"), help: "Read at most this many bytes.")
        var maxSize: Int?

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable {
            let name: String, hex: String, text: String?
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: AnyCodingKey.self)
                try c.encode(name, forKey: AnyCodingKey("name"))
                try c.encode(hex, forKey: AnyCodingKey("hex"))
                try c.encode(text, forKey: AnyCodingKey("text"))
            }
        }

        func run() async throws {
            let value = try await global.withClient { try await ConfigManager(client: $0).read(name: name, maxSize: maxSize) }.value
            let text = String(validating: value, as: UTF8.self)
            try global.output.emit(Answer(name: name, hex: value.hexString, text: text)) {
                if hex { return value.hexString }
                return TextFormat.printableText(value) ?? "\(value.hexString) (hex: the value is not text)"
            }
        }
    }

    /// `mcumgr config write NAME VALUE [--hex]`.
    struct Write: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "write", abstract: "Write a setting (apply with 'config commit', keep with 'config save').")

        @Argument(help: "The setting's name.")
        var name: String

        @Argument(help: "The value: text, or hex bytes with --hex.")
        var value: String

        @Flag(name: .customLong("hex"), help: "VALUE is hex bytes, e.g. 01ff.")
        var hex = false

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if hex, TextFormat.bytes(hex: value) == nil { throw ValidationError("'\(value)' is not hex bytes (e.g. 01ff)") }
        }

        func run() async throws {
            let bytes = hex ? TextFormat.bytes(hex: value)! : Array(value.utf8)
            try await global.withClient { try await ConfigManager(client: $0).write(name: name, value: bytes) }
            try global.output.emit(Done(action: "config-write", details: ["name": .string(name), "hex": .string(bytes.hexString)])) { "Done" }
        }
    }

    /// `mcumgr config delete NAME`.
    struct Delete: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a setting.")

        @Argument(help: "The setting's name.")
        var name: String

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withClient { try await ConfigManager(client: $0).delete(name: name) }
            try global.output.emit(Done(action: "config-delete", details: ["name": .string(name)])) { "Done" }
        }
    }

    /// `mcumgr config commit`.
    struct Commit: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "commit", abstract: "Apply the settings written so far.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withClient { try await ConfigManager(client: $0).commit() }
            try global.output.emit(Done(action: "config-commit")) { "Done" }
        }
    }

    /// `mcumgr config load`.
    struct Load: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "load", abstract: "Load the settings from persistent storage.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withClient { try await ConfigManager(client: $0).load() }
            try global.output.emit(Done(action: "config-load")) { "Done" }
        }
    }

    /// `mcumgr config save`.
    struct Save: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "save", abstract: "Save the settings to persistent storage.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withClient { try await ConfigManager(client: $0).save() }
            try global.output.emit(Done(action: "config-save")) { "Done" }
        }
    }
}
