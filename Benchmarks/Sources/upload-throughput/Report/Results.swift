/// One upload's numbers.
struct Sample: Sendable, Codable {
    /// Image bytes over the upload's (engine) or the whole command's (tools) wall time.
    let bytesPerSecond: Double
    let wallSeconds: Double
    /// User + system CPU of the uploading client.
    let cpuSeconds: Double
}

/// One row of the results: a tool (or our engine) on a link at a depth, with its runs.
struct ResultRow: Sendable, Codable {
    enum Section: String, Sendable, Codable {
        /// Our engine in this process, by link and pipeline depth.
        case engine
        /// Whole commands side by side: our CLI, smpmgr, mcumgr-toolkit.
        case tools
        /// Whole commands on a 1 MiB image at 0 ms: client CPU per MiB.
        case cpu
    }

    let section: Section
    let family: String
    let link: String
    /// `engine`, or the tool variant's label.
    let tool: String
    /// The requested pipeline depth; nil for the default (buf_count − 1) or a stop-and-wait peer.
    let depth: Int?
    /// How the depth column reads: `3`, `default (15)`, `1 (stop-and-wait)`.
    let depthLabel: String
    /// SMP packet (frame) size in bytes; nil for a tool's own default.
    let frame: Int?
    let bufferCount: Int
    let imageBytes: Int
    /// Data bytes per later chunk of our engine.
    let chunk: Int?
    /// The link's limit at this depth, bytes/s of image data.
    let limit: Double?
    var samples: [Sample] = []
    var failure: String?

    var bytesPerSecond: Double? { median(samples.map(\.bytesPerSecond)) }
    var wallSeconds: Double? { median(samples.map(\.wallSeconds)) }
    var cpuSeconds: Double? { median(samples.map(\.cpuSeconds)) }
    var cpuPerMiB: Double? { cpuSeconds.map { $0 / (Double(imageBytes) / 1_048_576) } }
    var ratioToLimit: Double? {
        guard let rate = bytesPerSecond, let limit, limit > 0 else { return nil }
        return rate / limit
    }
    var spread: (Double, Double)? {
        let rates = samples.map(\.bytesPerSecond)
        guard let low = rates.min(), let high = rates.max() else { return nil }
        return (low, high)
    }
}

/// The middle value (the mean of the two middle ones for an even count).
func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Numbers as the tables print them.
enum TextFormat {
    /// `5`, `7.5`, `0.25`: no trailing zeros.
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// Bytes per second in B/s, kB/s or MB/s (decimal, as link rates are given).
    static func rate(_ value: Double?) -> String {
        guard let value else { return "—" }
        if value >= 1e6 { return String(format: "%.2f MB/s", value / 1e6) }
        if value >= 1e3 { return String(format: "%.1f kB/s", value / 1e3) }
        return String(format: "%.0f B/s", value)
    }

    static func fixed(_ value: Double?, _ digits: Int) -> String {
        guard let value else { return "—" }
        return String(format: "%.\(digits)f", value)
    }

    static func percent(_ value: Double?) -> String {
        guard let value else { return "—" }
        return String(format: "%.0f %%", value * 100)
    }

    static func ratio(_ value: Double?) -> String {
        guard let value else { return "—" }
        return String(format: "%.2f×", value)
    }
}
