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
    /// Throughput over the last few seconds (``UploadProgressMeter/rateWindow``), in bytes per
    /// second; 0 until a second has been measured.
    public var currentBytesPerSecond: Double
    /// Throughput since the upload started, in bytes per second, of the bytes sent in this run
    /// (not those the device already held); 0 until a second has passed.
    public var averageBytesPerSecond: Double
    /// Bytes the device held before this run sent anything (a resumed upload); they count in
    /// ``bytesSent`` but in no rate.
    public var bytesAlreadyOnDevice: Int
    /// Whether at least a second of transfer has been measured: before, no rate or time left is shown.
    public var rateIsKnown: Bool

    /// Makes a progress report; `rateIsKnown` defaults to whether either rate is above 0.
    public init(
        bytesSent: Int, totalBytes: Int, currentBytesPerSecond: Double, averageBytesPerSecond: Double,
        bytesAlreadyOnDevice: Int = 0, rateIsKnown: Bool? = nil
    ) {
        self.bytesSent = bytesSent
        self.totalBytes = totalBytes
        self.currentBytesPerSecond = currentBytesPerSecond
        self.averageBytesPerSecond = averageBytesPerSecond
        self.bytesAlreadyOnDevice = bytesAlreadyOnDevice
        self.rateIsKnown = rateIsKnown ?? (currentBytesPerSecond > 0 || averageBytesPerSecond > 0)
    }

    /// Fraction done, 0…1.
    public var fraction: Double { totalBytes == 0 ? 1 : Double(bytesSent) / Double(totalBytes) }

    /// The throughput to show and to estimate with: the current one, else the average; 0 while
    /// the rate is not known yet.
    public var bytesPerSecond: Double {
        guard rateIsKnown else { return 0 }
        return currentBytesPerSecond > 0 ? currentBytesPerSecond : averageBytesPerSecond
    }

    /// Time left at ``bytesPerSecond``; `nil` while the rate is unknown or 0.
    public var estimatedTimeRemaining: Duration? {
        guard bytesPerSecond > 0 else { return nil }
        return .seconds(Double(max(0, totalBytes - bytesSent)) / bytesPerSecond)
    }

    /// The rate as text: `56.7 KiB/s`, or `-- B/s` while it is not known yet.
    public var rateText: String { rateIsKnown ? TextFormat.rate(bytesPerSecond) : "-- B/s" }

    /// Bytes, rate and time left: `118000/262696 bytes, 56.7 KiB/s, ETA 0:03` (`-- B/s` and
    /// `--:--` while unknown).
    public var summary: String {
        let eta = TextFormat.clock(estimatedTimeRemaining?.seconds ?? .infinity)
        return "\(bytesSent)/\(totalBytes) bytes, \(rateText), ETA \(eta)"
    }
}

extension UploadProgress: CustomStringConvertible {
    /// Percent done and the ``summary``: `44% (118000/262696 bytes, 56.7 KiB/s, ETA 0:03)`.
    public var description: String { "\(Int((min(1, fraction) * 100).rounded(.down)))% (\(summary))" }
}

/// Turns acknowledged offsets into throughput figures: the one place upload and download rates
/// are computed (the engine's progress, the command line's download display).
///
/// The current rate is measured over a sliding window of the last ``rateWindow`` (from the last
/// sample before the window began, so a stall followed by a burst spreads over the whole window
/// instead of reading as a jump); no rate is given before ``minimumMeasurement`` has been
/// measured. Bytes the device already held (``startsAt(_:)``) count in no rate.
public struct UploadProgressMeter: Sendable {
    /// How far back the current rate looks.
    public static let rateWindow = Duration.seconds(3)
    /// How much must have been measured before a rate is given.
    public static let minimumMeasurement = Duration.seconds(1)

    /// Bytes in the whole transfer.
    public let total: Int
    private let clock: SMPClock
    private let start: SMPInstant
    /// Bytes the device held before this run: by ``startsAt(_:)``, else the first offset recorded.
    private var startBytes: Int?
    /// (time, offset) samples from `oldest` on: the window's, and the last one before it. Samples
    /// that leave the window are skipped by moving `oldest` and dropped in batches, so a record
    /// (one per answer of an upload) costs the same however many answers the window holds.
    private var samples: [(time: SMPInstant, bytes: Int)] = []
    private var oldest = 0

    /// Makes a meter for `total` bytes that starts timing now on `clock`.
    public init(total: Int, clock: SMPClock = .continuous) {
        self.total = total
        self.clock = clock
        self.start = clock.now
    }

    /// Says that the device already held `bytes` when the transfer started (a resumed upload:
    /// 0 for a fresh one). Without it, the first offset recorded is taken as that.
    public mutating func startsAt(_ bytes: Int) {
        if startBytes == nil { startBytes = bytes }
    }

    /// Records that `bytes` are done and returns the progress with current and average rates.
    public mutating func record(_ bytes: Int) -> UploadProgress {
        let now = clock.now
        let base = startBytes ?? bytes
        startBytes = base
        if samples.isEmpty { samples.append((start, base)) }
        samples.append((now, bytes))
        while samples.count - oldest > 2, now - samples[oldest + 1].time >= Self.rateWindow {
            oldest += 1
        }
        if oldest >= 256, oldest * 2 >= samples.count {
            samples.removeFirst(oldest)
            oldest = 0
        }
        let first = samples[oldest]
        let window = now - first.time
        let elapsed = now - start
        let known = window >= Self.minimumMeasurement
        return UploadProgress(
            bytesSent: bytes, totalBytes: total,
            currentBytesPerSecond: known ? max(0, Double(bytes - first.bytes) / window.seconds) : 0,
            averageBytesPerSecond: elapsed >= Self.minimumMeasurement ? max(0, Double(bytes - base) / elapsed.seconds) : 0,
            bytesAlreadyOnDevice: base, rateIsKnown: known
        )
    }
}
