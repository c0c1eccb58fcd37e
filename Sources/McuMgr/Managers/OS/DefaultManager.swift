#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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
    public func echo(_ text: String) async throws(SMPError) -> String {
        try await client.send(EchoRequest(text: text)).text
    }

    /// Turns the device's console echo on or off (Mynewt; Zephyr answers `MGMT_ERR_ENOTSUP`).
    public func setConsoleEcho(_ on: Bool) async throws(SMPError) {
        _ = try await client.send(ConsoleEchoRequest(on: on))
    }

    /// Reads every thread's statistics, by thread name.
    public func taskStats() async throws(SMPError) -> [String: TaskStat] {
        try await client.send(TaskStatsRead()).tasks
    }

    /// Reads every memory pool's statistics, by pool name (current Zephyr answers `MGMT_ERR_ENOTSUP`).
    public func memoryPoolStats() async throws(SMPError) -> [String: MemoryPoolStat] {
        try await client.send(MemoryPoolStatsRead()).pools
    }

    /// Reads the device's clock.
    ///
    /// The device keeps wall-clock time without a zone, so text without a zone suffix is read as
    /// wall-clock time in `timeZone` (use the zone the clock was set in); a suffix, when present, wins.
    /// Throws `SMPError.invalidResponse` when the text is not a date-time.
    public func readDateTime(timeZone: TimeZone = .current) async throws(SMPError) -> Date {
        let text = try await client.send(DateTimeRead()).datetime
        guard let date = DeviceDateTime.parse(text, timeZone: timeZone) else {
            throw .invalidResponse("os command 4: \"\(text)\" is not a date-time (expected YYYY-MM-DDTHH:MM:SS)")
        }
        return date
    }

    /// Sets the device's clock to `date`, sent as wall-clock time in `timeZone`, whole seconds,
    /// without a zone suffix (`YYYY-MM-DDTHH:MM:SS`, the form every Zephyr build accepts).
    public func writeDateTime(_ date: Date, timeZone: TimeZone = .current) async throws(SMPError) {
        let text = DeviceDateTime.format(date, timeZone: timeZone)
        _ = try await client.send(DateTimeMessage(datetime: text))
    }

    /// Asks the device to reset. It answers first and reboots shortly after; with `force`, an
    /// application hook may not refuse. Never resent: a timeout means the answer (or the request)
    /// was lost, and the caller finds out whether the device rebooted.
    public func reset(force: Bool = false, options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) {
        _ = try await client.send(ResetRequest(force: force), options: options)
    }

    /// Reads the device's SMP buffer size and count.
    public func parameters() async throws(SMPError) -> McuMgrParameters {
        try await client.send(SMPDeviceBuffersRead())
    }

    /// Reads OS/application info; `format` picks the items (`nil`: the kernel name, `"a"`: all).
    public func applicationInfo(format: String? = nil) async throws(SMPError) -> String {
        try await client.send(ApplicationInfoRequest(format: format)).output
    }

    /// Reads the bootloader's name, then its mode and downgrade policy with `query: "mode"`.
    ///
    /// A device that has no answer to the mode query (`OS_MGMT_ERR_QUERY_YIELDS_NO_ANSWER`, or
    /// `MGMT_ERR_ENOTSUP`) yields `mode == nil`; any other error is thrown.
    public func bootloaderInfo(options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) -> BootloaderInfo {
        let named = try await client.send(BootloaderInfoRequest(), options: options)
        var info = BootloaderInfo(name: named.bootloader, mode: named.mode, noDowngrade: named.noDowngrade ?? false)
        do throws(SMPError) {
            let mode = try await client.send(BootloaderInfoRequest(query: "mode"), options: options)
            info.mode = mode.mode ?? info.mode
            info.noDowngrade = mode.noDowngrade ?? info.noDowngrade
            info.name = info.name ?? mode.bootloader
        } catch .device(let error) where error == .os(.queryYieldsNoAnswer) || error.status == .notSupported {
            // The bootloader has no mode to report.
        } catch {
            throw error
        }
        return info
    }
}
