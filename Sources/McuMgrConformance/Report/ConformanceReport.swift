/// What a conformance run found: one result per check, in the order they ran, and where the run
/// stopped if the device stopped answering.
public struct ConformanceReport: Sendable, Encodable {
    /// Why and where a run stopped early.
    public struct Stop: Sendable, Hashable, Encodable {
        /// The check that was running.
        public let check: String
        /// What happened.
        public let reason: String
    }

    /// The results, in the order the checks ran (those not run after a stop are `skipped`).
    public internal(set) var results: [ConformanceResult]
    /// The device's `buf_size` and `buf_count` as it reported them, when it did.
    public internal(set) var bufferSize: Int?
    /// See ``bufferSize``.
    public internal(set) var bufferCount: Int?
    /// Set when the device stopped answering and the run ended early.
    public internal(set) var stopped: Stop?

    /// How many results have `status`.
    public func count(_ status: ConformanceStatus) -> Int {
        results.filter { $0.status == status }.count
    }

    /// The required checks that failed.
    public var requiredFailures: [ConformanceResult] { results.filter(\.failsTheRun) }

    /// The run completed and no required check failed.
    public var passed: Bool { stopped == nil && requiredFailures.isEmpty }

    private enum CodingKeys: String, CodingKey {
        case passed, summary, device, stopped, checks
    }

    /// `{"passed", "summary": {status: count}, "device": {"buf_size", "buf_count"}, "stopped"?, "checks": [...]}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(passed, forKey: .passed)
        var summary: [String: Int] = [:]
        for status in ConformanceStatus.allCases { summary[status.rawValue] = count(status) }
        try c.encode(summary, forKey: .summary)
        var device: [String: Int] = [:]
        if let bufferSize { device["buf_size"] = bufferSize }
        if let bufferCount { device["buf_count"] = bufferCount }
        try c.encode(device, forKey: .device)
        try c.encodeIfPresent(stopped, forKey: .stopped)
        try c.encode(results, forKey: .checks)
    }
}
