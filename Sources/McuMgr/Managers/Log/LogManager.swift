#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SMP

/// The log group, 4, in Apache Mynewt's shape (Zephyr does not implement it and answers
/// `MGMT_ERR_ENOTSUP`): show entries, clear, and list modules, levels and logs.
public struct LogManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient

    /// Makes a manager over `client`.
    public init(client: SMPClient) { self.client = client }

    /// Reads one batch of entries of `logName` (`nil`: every log) from `index` on.
    ///
    /// The device returns what fits one response; ask again from `nextIndex`, or use `showAll`.
    /// `timestamp`, honoured by the device only together with `index`, is sent as UTC wall-clock
    /// text `YYYY-MM-DDTHH:MM:SS`.
    public func show(logName: String? = nil, index: Int? = nil, timestamp: Date? = nil) async throws(SMPError) -> LogShowResponse {
        let request = LogShowRequest(
            logName: logName, index: index,
            timestamp: timestamp.map { DeviceDateTime.format($0, timeZone: .gmt) }
        )
        return try await client.send(request)
    }

    /// Reads every entry of `logName` (`nil`: every log) from `index` on, following `next_index`
    /// until a response brings no entries or no progress, or after `maximumRequests` requests.
    /// Entries of the same log are joined in order.
    public func showAll(logName: String? = nil, from index: Int? = nil, maximumRequests: Int = 1024) async throws(SMPError) -> [LogShowLog] {
        var logs: [LogShowLog] = []
        var index = index
        for _ in 0..<max(maximumRequests, 1) {
            let batch = try await show(logName: logName, index: index)
            guard batch.logs.contains(where: { !$0.entries.isEmpty }) else { break }
            for log in batch.logs {
                if let position = logs.firstIndex(where: { $0.name == log.name }) {
                    logs[position].entries += log.entries
                } else {
                    logs.append(log)
                }
            }
            guard let next = batch.nextIndex, next > (index ?? -1) else { break }
            index = next
        }
        return logs
    }

    /// Clears every log.
    public func clear() async throws(SMPError) {
        _ = try await client.send(LogClear())
    }

    /// Lists the log modules: id by name.
    public func moduleList() async throws(SMPError) -> [String: Int] {
        try await client.send(LogModuleListRead()).modules
    }

    /// Lists the level names (from an array, or from a map ordered by level).
    public func levelList() async throws(SMPError) -> [String] {
        try await client.send(LogLevelListRead()).levels
    }

    /// Lists the names of the device's logs.
    public func logsList() async throws(SMPError) -> [String] {
        try await client.send(LogListRead()).names
    }
}
