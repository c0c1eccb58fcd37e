import ArgumentParser
import McuMgr
import McuMgrTools

extension MCUmgr {
    /// `mcumgr stat list | read NAME` (Go: `stat NAME`).
    struct Stat: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stat", abstract: "Show the device's statistics groups and counters.",
            subcommands: [List.self, Read.self], defaultSubcommand: List.self)
    }
}

extension MCUmgr.Stat {
    /// `mcumgr stat list`.
    struct List: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the statistics groups.")

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let groups: [String] }

        func run() async throws {
            let names = try await global.withClient { try await StatsManager(client: $0).list() }
            try global.output.emit(Answer(groups: names)) { names.joined(separator: "\n") }
        }
    }

    /// `mcumgr stat read NAME`.
    struct Read: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "read", abstract: "Show the counters of one statistics group.")

        @Argument(help: "The group's name, as 'mcumgr stat list' shows it.")
        var name: String

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let group = try await global.withClient { try await StatsManager(client: $0).read(group: name) }
            try global.output.emit(group) { DeviceTables.statistics(group) }
        }
    }
}
