import Foundation
import SMP

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
    private let clock: SMPClock
    private let start: SMPInstant
    /// The first offset recorded: bytes the device already held (a resumed upload) do not count as sent now.
    private var startBytes: Int?
    /// Recent (time, offset) samples, about the last second.
    private var samples: [(time: SMPInstant, bytes: Int)] = []

    init(total: Int, clock: SMPClock) {
        self.total = total
        self.clock = clock
        self.start = clock.now
    }

    mutating func record(_ bytes: Int) -> UploadProgress {
        let now = clock.now
        let base = startBytes ?? bytes
        startBytes = base
        samples.append((now, bytes))
        while samples.count > 2, now - samples[0].time > .seconds(1) {
            samples.removeFirst()
        }
        let oldest = samples[0]
        let window = (now - oldest.time).seconds
        let elapsed = (now - start).seconds
        return UploadProgress(
            bytesSent: bytes, totalBytes: total,
            currentBytesPerSecond: window > 0 ? max(0, Double(bytes - oldest.bytes) / window) : 0,
            averageBytesPerSecond: elapsed > 0 ? max(0, Double(bytes - base) / elapsed) : 0
        )
    }
}
