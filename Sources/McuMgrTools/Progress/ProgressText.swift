import McuMgr

/// The text of a transfer's progress, from an `UploadProgress` (its rate and time left come from
/// `UploadProgressMeter`; nothing here computes them again).
public enum ProgressText {
    /// The bar's width in characters.
    public static let barWidth = 30

    /// A terminal line: `upload [#########---------------------]  30%  78.8 KiB/256.5 KiB  56.7 KiB/s  ETA 0:04`.
    public static func bar(label: String, _ progress: UploadProgress) -> String {
        let bytes = "\(TextFormat.size(Double(progress.bytesSent)))/\(TextFormat.size(Double(progress.totalBytes)))"
        let eta = TextFormat.clock(progress.estimatedTimeRemaining?.seconds ?? .infinity)
        return "\(label) \(gauge(progress.fraction))  \(bytes)  \(progress.rateText)  ETA \(eta)"
    }

    /// A bar `width` characters wide and the percent done, for a `fraction` from 0 to 1 (clamped):
    /// `[#########---------------------]  30%`.
    public static func gauge(_ fraction: Double, width: Int = barWidth) -> String {
        let fraction = min(1, max(0, fraction))
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "[\(bar)] " + TextFormat.right("\(Int((fraction * 100).rounded(.down)))%", 4)
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
