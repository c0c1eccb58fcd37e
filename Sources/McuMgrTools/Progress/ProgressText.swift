import McuMgr

/// The text of a transfer's progress, from an `UploadProgress` (its rate and time left come from
/// `UploadProgressMeter`; nothing here computes them again).
public enum ProgressText {
    /// The bar's width in characters.
    public static let barWidth = 30

    /// A terminal line: `upload [#########---------------------]  30%  78.8 KiB/256.5 KiB  56.7 KiB/s  ETA 0:04`.
    public static func bar(label: String, _ progress: UploadProgress) -> String {
        let fraction = min(1, max(0, progress.fraction))
        let filled = Int((fraction * Double(barWidth)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled)
        let percent = TextFormat.right("\(Int((fraction * 100).rounded(.down)))%", 4)
        let bytes = "\(TextFormat.size(Double(progress.bytesSent)))/\(TextFormat.size(Double(progress.totalBytes)))"
        let eta = TextFormat.clock(progress.estimatedTimeRemaining?.seconds ?? .infinity)
        return "\(label) [\(bar)] \(percent)  \(bytes)  \(TextFormat.rate(progress.bytesPerSecond))  ETA \(eta)"
    }

    /// A plain line for a log or pipe at `percent` done: `upload: 30% (78848/262696 bytes, 56.7 KiB/s, ETA 0:04)`.
    public static func line(label: String, percent: Int, _ progress: UploadProgress) -> String {
        "\(label): \(percent)% (\(progress.summary))"
    }

    /// The tenth reached (0–10): 10 % lines are printed once each as it grows.
    public static func decile(_ progress: UploadProgress) -> Int {
        Int((min(1, max(0, progress.fraction)) * 10).rounded(.down))
    }
}
