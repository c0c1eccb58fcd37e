/// Numbers for people: byte counts, throughput, durations and fixed decimals, as the `mcumgr`
/// command line prints them and as the library's types describe themselves.
public enum TextFormat {
    /// A byte count: `512 B`, `12.3 KiB`, `1.50 MiB`.
    public static func size(_ bytes: Double) -> String {
        if bytes < 1024 { return "\(Int(bytes.rounded())) B" }
        if bytes < 1024 * 1024 { return fixed(bytes / 1024, 1) + " KiB" }
        return fixed(bytes / (1024 * 1024), 2) + " MiB"
    }

    /// A throughput, e.g. `56.7 KiB/s`.
    public static func rate(_ bytesPerSecond: Double) -> String {
        size(bytesPerSecond) + "/s"
    }

    /// A duration in seconds as a clock reading: `0:07`, `1:02:03`; `--:--` when unknown (infinite or negative).
    public static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--:--" }
        let total = Int(seconds.rounded(.up))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        let ss = s < 10 ? "0\(s)" : "\(s)"
        if h > 0 { return "\(h):" + (m < 10 ? "0\(m)" : "\(m)") + ":" + ss }
        return "\(m):" + ss
    }

    /// `value` with `digits` decimals, rounded: `fixed(2.345, 2)` is `2.35`.
    public static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        let whole = scaled / Int(scale)
        guard digits > 0 else { return "\(whole)" }
        var fraction = String(abs(scaled) % Int(scale))
        while fraction.count < digits { fraction = "0" + fraction }
        return (scaled < 0 && whole == 0 ? "-" : "") + "\(whole).\(fraction)"
    }
}
