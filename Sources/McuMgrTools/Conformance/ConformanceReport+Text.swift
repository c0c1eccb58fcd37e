import McuMgr
import McuMgrConformance

extension ConformanceReport {
    /// The report as people read it: one row per check (verdict, check, what is expected, what
    /// the device did, long cells wrapped), each check's packets under its row with `verbose`,
    /// then a summary and, when the run stopped early, where and why.
    public func text(verbose: Bool = false) -> String {
        let widths = [15, 30, 46, 46]
        var lines = ConformanceTable.rows([["RESULT", "CHECK", "EXPECTED", "DEVICE"]], widths: widths)
        for result in results {
            lines += ConformanceTable.rows([[result.verdict, result.id, result.expects, result.observed]], widths: widths)
            if verbose {
                lines += result.evidence.map { "    \($0)" }
            }
        }
        lines.append("")
        lines.append(summary)
        if let stopped { lines.append("stopped at \(stopped.check): \(stopped.reason)") }
        return lines.joined(separator: "\n")
    }

    /// `42 checks: 38 passed, 1 failed (framing.sequence), 1 not supported, 2 skipped`.
    public var summary: String {
        var parts = ["\(count(.pass)) passed"]
        let failed = results.filter { $0.status == .fail }
        if !failed.isEmpty { parts.append("\(failed.count) failed (\(failed.map(\.id).joined(separator: ", ")))") }
        if count(.unsupported) > 0 { parts.append("\(count(.unsupported)) not supported") }
        if count(.skipped) > 0 { parts.append("\(count(.skipped)) skipped") }
        return "\(results.count) check\(results.count == 1 ? "" : "s"): " + parts.joined(separator: ", ")
    }
}

extension ConformanceResult {
    /// `pass`, `FAIL` (a required check), `fail (advisory)`, `not supported` or `skipped`.
    public var verdict: String {
        switch status {
        case .fail: return required ? "FAIL" : "fail (advisory)"
        default: return status.rawValue
        }
    }
}

extension ConformanceCheck {
    /// The checks as a table: name, whether required, what each needs, what it expects.
    public static func listText(_ checks: [ConformanceCheck] = all) -> String {
        let rows = checks.map { [$0.id, $0.isRequired ? "required" : "advisory", $0.access.rawValue, $0.expects] }
        return ConformanceTable.rows([["CHECK", "", "NEEDS", "EXPECTS"]] + rows, widths: [30, 9, 28, 70]).joined(separator: "\n")
    }
}

/// Rows of cells in columns of fixed widths, long cells wrapped at spaces onto further lines.
enum ConformanceTable {
    /// The lines of `rows`, columns two spaces apart, no trailing spaces.
    static func rows(_ rows: [[String]], widths: [Int]) -> [String] {
        var lines: [String] = []
        for row in rows {
            let wrapped = row.enumerated().map { index, cell in wrap(cell, width: widths[min(index, widths.count - 1)]) }
            for lineIndex in 0..<(wrapped.map(\.count).max() ?? 0) {
                let cells = wrapped.enumerated().map { column, cellLines in
                    TextFormat.left(lineIndex < cellLines.count ? cellLines[lineIndex] : "", widths[min(column, widths.count - 1)])
                }
                var line = Substring(cells.joined(separator: "  "))
                while line.last == " " { line = line.dropLast() }
                lines.append(String(line))
            }
        }
        return lines
    }

    /// `text` in lines of at most `width` characters, broken at spaces (a longer word stands alone).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}
