import Foundation
import SMP

/// The OS (default) group, 0: echo, task and memory statistics, date-time, reset, SMP buffer
/// parameters, application and bootloader info.
///
/// Device errors arrive as `SMPError.device(...)`: OS-group errors as `.os(OSGroupError)`,
/// SMP-level ones (such as `MGMT_ERR_ENOTSUP` for a command the device lacks) as `.status`.
public struct DefaultManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient

    /// Makes a manager over `client`.
    public init(client: SMPClient) { self.client = client }

    /// Sends `text` and returns what the device echoes (a write request, as the mcumgr CLI sends it).
    public func echo(_ text: String) async throws -> String {
        try await client.request(.write, group: .os, command: Command.echo, body: EchoRequest(text: text), as: EchoResponse.self).text
    }

    /// Turns the device's console echo on or off (Mynewt; Zephyr answers `MGMT_ERR_ENOTSUP`).
    public func setConsoleEcho(_ on: Bool) async throws {
        _ = try await client.request(.write, group: .os, command: Command.consoleEcho, body: ConsoleEchoRequest(on: on), as: SMPEmptyMessage.self)
    }

    /// Reads every thread's statistics, by thread name.
    public func taskStats() async throws -> [String: TaskStat] {
        try await client.request(.read, group: .os, command: Command.taskStats, body: SMPEmptyMessage(), as: TaskStatsResponse.self).tasks
    }

    /// Reads every memory pool's statistics, by pool name (current Zephyr answers `MGMT_ERR_ENOTSUP`).
    public func memoryPoolStats() async throws -> [String: MemoryPoolStat] {
        try await client.request(.read, group: .os, command: Command.memoryPoolStats, body: SMPEmptyMessage(), as: MemoryPoolStatsResponse.self).pools
    }

    /// Reads the device's clock.
    ///
    /// The device keeps wall-clock time without a zone, so text without a zone suffix is read as
    /// wall-clock time in `timeZone` (use the zone the clock was set in); a suffix, when present, wins.
    /// Throws `SMPError.invalidResponse` when the text is not a date-time.
    public func readDateTime(timeZone: TimeZone = .current) async throws -> Date {
        let text = try await client.request(.read, group: .os, command: Command.dateTime, body: SMPEmptyMessage(), as: DateTimeMessage.self).datetime
        guard let date = DeviceDateTime.parse(text, timeZone: timeZone) else {
            throw SMPError.invalidResponse("os command 4: \"\(text)\" is not a date-time (expected YYYY-MM-DDTHH:MM:SS)")
        }
        return date
    }

    /// Sets the device's clock to `date`, sent as wall-clock time in `timeZone`, whole seconds,
    /// without a zone suffix (`YYYY-MM-DDTHH:MM:SS`, the form every Zephyr build accepts).
    public func writeDateTime(_ date: Date, timeZone: TimeZone = .current) async throws {
        let text = DeviceDateTime.format(date, timeZone: timeZone)
        _ = try await client.request(.write, group: .os, command: Command.dateTime, body: DateTimeMessage(datetime: text), as: SMPEmptyMessage.self)
    }

    /// Asks the device to reset. It answers first and reboots shortly after; with `force`, an
    /// application hook may not refuse.
    public func reset(force: Bool = false) async throws {
        _ = try await client.request(.write, group: .os, command: Command.reset, body: ResetRequest(force: force), as: SMPEmptyMessage.self)
    }

    /// Reads the device's SMP buffer size and count.
    public func parameters() async throws -> McuMgrParameters {
        try await client.request(.read, group: .os, command: Command.parameters, body: SMPEmptyMessage(), as: McuMgrParameters.self)
    }

    /// Reads OS/application info; `format` picks the items (`nil`: the kernel name, `"a"`: all).
    public func applicationInfo(format: String? = nil) async throws -> String {
        try await client.request(.read, group: .os, command: Command.applicationInfo, body: ApplicationInfoRequest(format: format), as: ApplicationInfoResponse.self).output
    }

    /// Reads the bootloader's name, then its mode and downgrade policy with `query: "mode"`.
    ///
    /// A device that has no answer to the mode query (`OS_MGMT_ERR_QUERY_YIELDS_NO_ANSWER`, or
    /// `MGMT_ERR_ENOTSUP`) yields `mode == nil`; any other error is thrown.
    public func bootloaderInfo() async throws -> BootloaderInfo {
        let named = try await client.request(.read, group: .os, command: Command.bootloaderInfo, body: BootloaderInfoRequest(), as: BootloaderInfoResponse.self)
        var info = BootloaderInfo(name: named.bootloader, mode: named.mode, noDowngrade: named.noDowngrade ?? false)
        do {
            let mode = try await client.request(.read, group: .os, command: Command.bootloaderInfo, body: BootloaderInfoRequest(query: "mode"), as: BootloaderInfoResponse.self)
            info.mode = mode.mode ?? info.mode
            info.noDowngrade = mode.noDowngrade ?? info.noDowngrade
            info.name = info.name ?? mode.bootloader
        } catch SMPError.device(let error) where error == .os(.queryYieldsNoAnswer) || error.status == .notSupported {
            // The bootloader has no mode to report.
        }
        return info
    }

    private enum Command {
        static let echo: UInt8 = 0
        static let consoleEcho: UInt8 = 1
        static let taskStats: UInt8 = 2
        static let memoryPoolStats: UInt8 = 3
        static let dateTime: UInt8 = 4
        static let reset: UInt8 = 5
        static let parameters: UInt8 = 6
        static let applicationInfo: UInt8 = 7
        static let bootloaderInfo: UInt8 = 8
    }
}
