import Foundation

/// How far an upload has come.
public struct UploadProgress: Sendable, Hashable {
    /// Bytes the device has acknowledged.
    public var bytesSent: Int
    /// Bytes in the whole upload.
    public var totalBytes: Int
    /// Throughput over the last second or so, in bytes per second.
    public var currentBytesPerSecond: Double
    /// Throughput since the upload started, in bytes per second.
    public var averageBytesPerSecond: Double

    /// Makes a progress report.
    public init(bytesSent: Int, totalBytes: Int, currentBytesPerSecond: Double, averageBytesPerSecond: Double) {
        self.bytesSent = bytesSent
        self.totalBytes = totalBytes
        self.currentBytesPerSecond = currentBytesPerSecond
        self.averageBytesPerSecond = averageBytesPerSecond
    }

    /// Fraction done, 0…1.
    public var fraction: Double { totalBytes == 0 ? 1 : Double(bytesSent) / Double(totalBytes) }
}

/// Turns acknowledged offsets into throughput figures.
struct UploadProgressMeter {
    let total: Int
    let start = ContinuousClock.now
    private var samples: [(time: ContinuousClock.Instant, bytes: Int)] = []
    private var startBytes: Int?

    init(total: Int) {
        self.total = total
    }

    mutating func record(_ bytes: Int) -> UploadProgress {
        let now = ContinuousClock.now
        if startBytes == nil { startBytes = bytes }
        samples.append((now, bytes))
        while samples.count > 2, let first = samples.first, now - first.time > .seconds(1) {
            samples.removeFirst()
        }
        let window = samples.first.map { seconds(now - $0.time) } ?? 0
        let current = window > 0 ? Double(bytes - samples.first!.bytes) / window : 0
        let elapsed = seconds(now - start)
        let average = elapsed > 0 ? Double(bytes - (startBytes ?? 0)) / elapsed : 0
        return UploadProgress(bytesSent: bytes, totalBytes: total, currentBytesPerSecond: max(current, 0), averageBytesPerSecond: max(average, 0))
    }

    private func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
