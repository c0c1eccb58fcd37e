import McuMgr

/// Small text helpers for human-readable output.
enum Format {
    /// `bytes` as lowercase hex, two digits a byte.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses hex text (two digits a byte, either case, optional `0x` prefix, spaces and colons
    /// between bytes allowed); nil for anything else.
    static func bytes(hex text: String) -> [UInt8]? {
        var digits = text.filter { $0 != " " && $0 != ":" }
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits.removeFirst(2) }
        return [UInt8](hex: digits)
    }

    /// A byte count for people: `512 B`, `12.3 KiB`, `1.5 MiB`.
    static func size(_ bytes: Double) -> String {
        if bytes < 1024 { return "\(Int(bytes.rounded())) B" }
        if bytes < 1024 * 1024 { return fixed(bytes / 1024, 1) + " KiB" }
        return fixed(bytes / (1024 * 1024), 2) + " MiB"
    }

    /// A throughput for people, e.g. `56.7 KiB/s`.
    static func rate(_ bytesPerSecond: Double) -> String {
        size(bytesPerSecond) + "/s"
    }

    /// A duration in seconds for people: `0:07`, `1:02:03`.
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--:--" }
        let total = Int(seconds.rounded(.up))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        let ss = s < 10 ? "0\(s)" : "\(s)"
        if h > 0 { return "\(h):" + (m < 10 ? "0\(m)" : "\(m)") + ":" + ss }
        return "\(m):" + ss
    }

    /// `value` with `digits` decimals.
    static func fixed(_ value: Double, _ digits: Int) -> String {
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

    /// `text` padded with spaces on the left to `width` characters.
    static func right(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// `text` padded with spaces on the right to `width` characters.
    static func left(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// Rows as a table: columns as wide as their widest cell, numbers right-aligned.
    static func table(header: [String], rows: [[String]], rightAligned: Set<Int> = []) -> String {
        var widths = header.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count {
                widths[i] = max(widths[i], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                rightAligned.contains(i) ? right(cell, widths[i]) : left(cell, widths[i])
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    /// `bytes` as text when they are printable UTF-8, else nil.
    static func printableText(_ bytes: [UInt8]) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let printable = text.unicodeScalars.allSatisfy { scalar in
            scalar == "\n" || scalar == "\t" || scalar == "\r" || (scalar.value >= 0x20 && scalar.value != 0x7f)
        }
        return printable ? text : nil
    }
}

extension String {
    /// The string without trailing spaces.
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

extension Duration {
    /// The duration in seconds.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
