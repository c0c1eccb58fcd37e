#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
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

    /// The throughput to show and to estimate with: the current one, else (before a window of
    /// samples exists) the average; 0 when nothing has moved yet.
    public var bytesPerSecond: Double { currentBytesPerSecond > 0 ? currentBytesPerSecond : averageBytesPerSecond }

    /// Time left at ``bytesPerSecond``; `nil` while the rate is unknown (0).
    public var estimatedTimeRemaining: Duration? {
        guard bytesPerSecond > 0 else { return nil }
        return .seconds(Double(max(0, totalBytes - bytesSent)) / bytesPerSecond)
    }

    /// Bytes, rate and time left: `118000/262696 bytes, 56.7 KiB/s, ETA 0:03` (`--:--` while unknown).
    public var summary: String {
        let eta = TextFormat.clock(estimatedTimeRemaining?.seconds ?? .infinity)
        return "\(bytesSent)/\(totalBytes) bytes, \(TextFormat.rate(bytesPerSecond)), ETA \(eta)"
    }
}

extension UploadProgress: CustomStringConvertible {
    /// Percent done and the ``summary``: `44% (118000/262696 bytes, 56.7 KiB/s, ETA 0:03)`.
    public var description: String { "\(Int((min(1, fraction) * 100).rounded(.down)))% (\(summary))" }
}

/// Turns acknowledged offsets into throughput figures: the one place upload and download rates
/// are computed (the engine's progress, the command line's download display).
public struct UploadProgressMeter: Sendable {
    /// Bytes in the whole transfer.
    public let total: Int
    private let clock: SMPClock
    private let start: SMPInstant
    /// The first offset recorded: bytes the device already held (a resumed upload) do not count as sent now.
    private var startBytes: Int?
    /// Recent (time, offset) samples, about the last second.
    private var samples: [(time: SMPInstant, bytes: Int)] = []

    /// Makes a meter for `total` bytes that starts timing now on `clock`.
    public init(total: Int, clock: SMPClock = .continuous) {
        self.total = total
        self.clock = clock
        self.start = clock.now
    }

    /// Records that `bytes` are done and returns the progress with current and average rates.
    public mutating func record(_ bytes: Int) -> UploadProgress {
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
