import ArgumentParser
import McuMgr
import McuMgrTools

extension MCUmgr {
    /// `mcumgr log show|clear|modules|levels|list` (Mynewt's log group; Zephyr answers MGMT_ERR_ENOTSUP).
    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "log", abstract: "Read and clear the device's logs (Mynewt log group).",
            subcommands: [Show.self, Clear.self, Modules.self, Levels.self, List.self])
    }
}

extension MCUmgr.Log {
    /// `mcumgr log show [NAME] [--index N]`.
    struct Show: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Print log entries.")

        @Argument(help: "Only this log (default: every log).")
        var name: String?

        @Option(name: .customLong("index"), help: "Start at this entry index.")
        var index: Int?

        @OptionGroup var global: GlobalOptions

        private struct Entry: Encodable {
            let index: Int, ts: UInt64, level: Int, module: Int, msg: String, encoding: String
        }
        private struct LogRecord: Encodable { let name: String, type: Int, entries: [Entry] }
        private struct Answer: Encodable { let logs: [LogRecord] }

        func run() async throws {
            let logs = try await global.withClient { try await LogManager(client: $0).showAll(logName: name, from: index) }
            let records = logs.map { log in
                LogRecord(name: log.name, type: log.type, entries: log.entries.map { e in
                    let text = e.text
                    return Entry(index: e.index, ts: e.timestamp, level: e.level, module: e.module,
                                 msg: text ?? e.message.hexString, encoding: text == nil ? "hex" : "text")
                })
            }
            try global.output.emit(Answer(logs: records)) {
                var lines: [String] = []
                for log in records {
                    lines.append("log: \(log.name) (type \(log.type), \(log.entries.count) entries)")
                    for e in log.entries {
                        lines.append("  [\(e.index)] ts=\(e.ts) level=\(e.level) module=\(e.module) \(e.msg)")
                    }
                }
                return lines.isEmpty ? "no log entries" : lines.joined(separator: "\n")
            }
        }
    }

    /// `mcumgr log clear`.
    struct Clear: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Clear every log.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withClient { try await LogManager(client: $0).clear() }
            try global.output.emit(Done(action: "log-clear")) { "Done" }
        }
    }

    /// `mcumgr log modules` (Go: `log module_list`).
    struct Modules: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "modules", abstract: "List the log modules and their ids.", aliases: ["module_list"])

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let modules: [String: Int] }

        func run() async throws {
            let modules = try await global.withClient { try await LogManager(client: $0).moduleList() }
            try global.output.emit(Answer(modules: modules)) {
                DeviceTables.logModules(modules)
            }
        }
    }

    /// `mcumgr log levels` (Go: `log level_list`).
    struct Levels: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "levels", abstract: "List the log level names.", aliases: ["level_list"])

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let levels: [String] }

        func run() async throws {
            let levels = try await global.withClient { try await LogManager(client: $0).levelList() }
            try global.output.emit(Answer(levels: levels)) { levels.joined(separator: "\n") }
        }
    }

    /// `mcumgr log list`.
    struct List: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the device's logs.")

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let logs: [String] }

        func run() async throws {
            let names = try await global.withClient { try await LogManager(client: $0).logsList() }
            try global.output.emit(Answer(logs: names)) { names.joined(separator: "\n") }
        }
    }
}
