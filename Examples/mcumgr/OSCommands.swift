import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import McuMgr
import McuMgrTools

// The OS (default) group, 0: echo, reset, datetime, taskstat, mpstat, params, info, bootloader.

extension MCUmgr {
    /// `mcumgr echo TEXT…`.
    struct Echo: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "echo", abstract: "Send text to the device and print what it echoes back.")

        @Argument(help: "The text (several words are joined with spaces).")
        var text: [String]

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let echo: String }

        func run() async throws {
            let answer = try await global.withClient { try await DefaultManager(client: $0).echo(text.joined(separator: " ")) }
            try global.output.emit(Answer(echo: answer)) { answer }
        }
    }

    /// `mcumgr reset [--force]`.
    struct Reset: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset", abstract: "Reset (reboot) the device.",
            discussion: "The device answers first and reboots shortly after; a pending image is swapped in then.")

        @Flag(help: "Reset even if the application would refuse.")
        var force = false

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withClient { try await DefaultManager(client: $0).reset(force: force) }
            try global.output.emit(Done(action: "reset", details: ["force": .bool(force)])) { "Done: the device is resetting" }
        }
    }

    /// `mcumgr datetime [get | set [VALUE]]` (Go: `datetime [VALUE]`).
    struct DateTime: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "datetime", abstract: "Read or set the device's clock.",
            subcommands: [Get.self, Set.self], defaultSubcommand: Get.self)
    }

    /// `mcumgr taskstat`.
    struct TaskStat: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "taskstat", abstract: "Show the device's threads (task statistics).")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let tasks = try await global.withClient { try await DefaultManager(client: $0).taskStats() }
            try global.output.emit(TaskStatsResponse(tasks: tasks)) { DeviceTables.tasks(tasks) }
        }
    }

    /// `mcumgr mpstat`.
    struct MPStat: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "mpstat", abstract: "Show the device's memory pools.")

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let mpools: [String: MemoryPoolStat] }

        func run() async throws {
            let pools = try await global.withClient { try await DefaultManager(client: $0).memoryPoolStats() }
            try global.output.emit(Answer(mpools: pools)) { DeviceTables.memoryPools(pools) }
        }
    }

    /// `mcumgr params`.
    struct Params: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "params", abstract: "Show the device's SMP buffer size and count (buf_size, buf_count).")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let p = try await global.withClient { try await DefaultManager(client: $0).parameters() }
            try global.output.emit(p) {
                "buf_size: \(p.bufferSize)\nbuf_count: \(p.bufferCount)"
            }
        }
    }

    /// `mcumgr info [FORMAT]`.
    struct Info: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "info", abstract: "Show OS/application info.",
            discussion: """
                FORMAT picks the items: s kernel name, n node name, r release, v version, b build date, m machine, \
                p processor, i hardware platform, o operating system, a all. Default: the kernel name.
                """)

        @Argument(help: "Which items to show (e.g. a, or snv).")
        var format: String?

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let output: String }

        func run() async throws {
            let output = try await global.withClient { try await DefaultManager(client: $0).applicationInfo(format: format) }
            try global.output.emit(Answer(output: output)) { output }
        }
    }

    /// `mcumgr bootloader`.
    struct Bootloader: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "bootloader", abstract: "Show the bootloader's name, mode and downgrade policy.")

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable {
            let bootloader: String?, mode: Int?, mode_name: String?, no_downgrade: Bool
        }

        func run() async throws {
            let info = try await global.withClient { try await DefaultManager(client: $0).bootloaderInfo() }
            let modeName = info.bootloaderMode?.description
            try global.output.emit(Answer(bootloader: info.name, mode: info.mode, mode_name: modeName, no_downgrade: info.noDowngrade)) {
                """
                bootloader: \(info.name ?? "unknown")
                mode: \(info.mode.map { "\($0) (\(modeName ?? "unknown"))" } ?? "unknown")
                no-downgrade: \(info.noDowngrade)
                """
            }
        }
    }

    /// `mcumgr erase-storage` (Zephyr basic group, 63).
    struct EraseStorage: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "erase-storage", abstract: "Erase the device's storage partition (settings, file systems kept there).")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withClient { try await BasicManager(client: $0).eraseStorage() }
            try global.output.emit(Done(action: "erase-storage")) { "Done: storage erased" }
        }
    }
}

extension MCUmgr.DateTime {
    /// `mcumgr datetime get`.
    struct Get: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print the device's clock (wall-clock time, no zone).")

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let datetime: String }

        func run() async throws {
            let date = try await global.withClient { try await DefaultManager(client: $0).readDateTime(timeZone: .current) }
            let text = DeviceDateTime.format(date, timeZone: .current)
            try global.output.emit(Answer(datetime: text)) { text }
        }
    }

    /// `mcumgr datetime set [VALUE]`.
    struct Set: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set the device's clock (default: this computer's local time).")

        @Argument(help: ArgumentHelp("The time, YYYY-MM-DDTHH:MM:SS (local time unless it ends in Z or ±HH:MM).", valueName: "datetime"))
        var value: String?

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let ok = true, action = "datetime-set", datetime: String }

        func validate() throws {
            if let value, DeviceDateTime.parse(value, timeZone: .current) == nil {
                throw ValidationError("'\(value)' is not a date-time; use YYYY-MM-DDTHH:MM:SS, e.g. 2025-01-31T12:00:00")
            }
        }

        func run() async throws {
            let date = value.flatMap { DeviceDateTime.parse($0, timeZone: .current) } ?? Date()
            try await global.withClient { try await DefaultManager(client: $0).writeDateTime(date, timeZone: .current) }
            let text = DeviceDateTime.format(date, timeZone: .current)
            try global.output.emit(Answer(datetime: text)) { "Done: the device's clock is set to \(text)" }
        }
    }
}
