import Foundation

/// What the results say about the machine they were measured on.
struct MachineInfo: Sendable, Codable {
    let date: String
    let host: String
    let cpu: String
    let cores: Int
    let loadBefore: String
    var loadAfter: String = ""

    static func current() -> MachineInfo {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        return MachineInfo(
            date: formatter.string(from: Date()), host: ProcessInfo.processInfo.hostName, cpu: cpu,
            cores: ProcessInfo.processInfo.activeProcessorCount, loadBefore: loadAverage())
    }

    /// The 1, 5 and 15 minute load averages, as `uptime` prints them.
    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
