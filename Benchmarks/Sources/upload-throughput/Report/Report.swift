/// The Markdown and CSV of one run.
struct Report {
    let rows: [ResultRow]
    let machine: MachineInfo
    let runs: Int
    /// Runs of a side-by-side row whose whole command is short.
    let shortRuns: Int
    let elapsedSeconds: Double

    func markdown(checks: [Check]) -> String {
        var out: [String] = []
        out.append("# Upload throughput")
        out.append("")
        out.append("Measured \(machine.date) on \(machine.host): \(machine.cpu), \(machine.cores) cores; load average \(machine.loadBefore) before, \(machine.loadAfter) after (1/5/15 min). Median of \(runs) run\(runs == 1 ? "" : "s") per row (a whole command that took over \(TextFormat.number(BenchRunner.singleRunSeconds)) s runs once\(shortRuns > runs ? ", one that took under \(TextFormat.number(BenchRunner.shortCommandSeconds)) s \(shortRuns) times" : "")), \(TextFormat.fixed(elapsedSeconds, 0)) s in all.")
        out.append("")
        out += engineTable()
        out += toolTables()
        out += cpuTable()
        out.append("## Checks")
        out.append("")
        for check in checks { out.append("- \(check.markdown)") }
        out.append("")
        let failures = rows.filter { $0.failure != nil }
        if !failures.isEmpty {
            out.append("## Rows that failed")
            out.append("")
            for row in failures { out.append("- \(row.link), \(row.tool), depth \(row.depthLabel): \(row.failure!.split(separator: "\n").first ?? "")") }
            out.append("")
        }
        return out.joined(separator: "\n")
    }

    private func engineTable() -> [String] {
        let engine = rows.filter { $0.section == .engine }
        guard !engine.isEmpty else { return [] }
        var out = [
            "## Our engine by link and pipeline depth",
            "",
            "`ImageManager.upload` in the benchmark process over the real transport (alignment 4), timed from the first chunk to the last answer (the session reads `mcumgr params` first, as once per connection). UDP rows with a latency run `mcumgr-sim --timer-spin 1000` (the device turns its event loop for the last millisecond before an answer is due: this VM wakes 0.2–0.5 ms late from idle). Limit: window × chunk ÷ round trip (window = min(depth, buf_count)), capped by the link's bandwidth; none for UDP without latency (the machine is the limit).",
            "",
            "| link | buf_count | depth | chunk | bytes/s | min – max | limit | of limit | CPU s/MiB |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in engine {
            let spread = row.spread.map { "\(TextFormat.rate($0.0)) – \(TextFormat.rate($0.1))" } ?? "—"
            out.append("| \(row.link) | \(row.bufferCount) | \(row.depthLabel) | \(row.chunk.map(String.init) ?? "—") | \(TextFormat.rate(row.bytesPerSecond)) | \(spread) | \(TextFormat.rate(row.limit)) | \(TextFormat.percent(row.ratioToLimit)) | \(TextFormat.fixed(row.cpuPerMiB, 3)) |")
        }
        out.append("")
        return out
    }

    private func toolTables() -> [String] {
        let tools = rows.filter { $0.section == .tools }
        guard !tools.isEmpty else { return [] }
        var out = [
            "## Side by side: whole commands",
            "",
            "Each tool uploads the same image to a fresh simulator. bytes/s = image bytes ÷ the whole command's wall time (start-up included); CPU = user + system of the client process (wait4). Ratios compare our `mcumgr` at its default depth with each row: bytes/s ours ÷ theirs (above 1: we are faster), CPU theirs ÷ ours (above 1: we use less).",
            "",
        ]
        for link in orderedLinks(tools) {
            let linkRows = tools.filter { $0.link == link }
            let ours = linkRows.first { $0.tool.hasPrefix("mcumgr (") && $0.depth == nil }
            out.append("### \(link) (buf_count \(linkRows.first?.bufferCount ?? 0), image \(linkRows.first?.imageBytes ?? 0) bytes)")
            out.append("")
            out.append("| tool | depth | bytes/s | wall s | CPU s/MiB | ours ÷ this, bytes/s | this ÷ ours, CPU |")
            out.append("|---|---:|---:|---:|---:|---:|---:|")
            for row in linkRows {
                let speed = ours?.bytesPerSecond.flatMap { a in row.bytesPerSecond.map { a / $0 } }
                let cpu = ours?.cpuSeconds.flatMap { a in row.cpuSeconds.map { $0 / a } }
                out.append("| \(row.tool) | \(row.depthLabel) | \(TextFormat.rate(row.bytesPerSecond)) | \(TextFormat.fixed(row.wallSeconds, 2)) | \(TextFormat.fixed(row.cpuPerMiB, 3)) | \(TextFormat.ratio(speed)) | \(TextFormat.ratio(cpu)) |")
            }
            out.append("")
        }
        return out
    }

    private func cpuTable() -> [String] {
        let cpu = rows.filter { $0.section == .cpu }
        guard !cpu.isEmpty else { return [] }
        var out = [
            "## Client CPU per MiB uploaded",
            "",
            "A \(cpu.first.map { String(format: "%.2f", Double($0.imageBytes) / 1_048_576) } ?? "1") MiB image over \(cpu.first?.link ?? "UDP"), whole commands; CPU = user + system of the client (wait4), start-up included.",
            "",
            "| tool | depth | CPU s/MiB | user+sys s | wall s | bytes/s |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for row in cpu {
            out.append("| \(row.tool) | \(row.depthLabel) | \(TextFormat.fixed(row.cpuPerMiB, 3)) | \(TextFormat.fixed(row.cpuSeconds, 3)) | \(TextFormat.fixed(row.wallSeconds, 2)) | \(TextFormat.rate(row.bytesPerSecond)) |")
        }
        out.append("")
        return out
    }

    func csv() -> String {
        var lines = ["section,family,link,tool,depth,frame,buf_count,image_bytes,chunk,runs,bytes_per_s_median,bytes_per_s_min,bytes_per_s_max,wall_s_median,cpu_s_median,cpu_s_per_mib,limit_bytes_per_s,ratio_to_limit,failure"]
        for row in rows {
            let fields: [String] = [
                row.section.rawValue, row.family, row.link, row.tool, row.depthLabel, row.frame.map(String.init) ?? "default",
                "\(row.bufferCount)", "\(row.imageBytes)", row.chunk.map(String.init) ?? "", "\(row.samples.count)",
                csvNumber(row.bytesPerSecond, 0), csvNumber(row.spread?.0, 0), csvNumber(row.spread?.1, 0),
                csvNumber(row.wallSeconds, 4), csvNumber(row.cpuSeconds, 4), csvNumber(row.cpuPerMiB, 4),
                csvNumber(row.limit, 0), csvNumber(row.ratioToLimit, 4), row.failure.map { String($0.split(separator: "\n").first ?? "") } ?? "",
            ]
            lines.append(fields.map(csvField).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func csvNumber(_ value: Double?, _ digits: Int) -> String {
        value.map { String(format: "%.\(digits)f", $0) } ?? ""
    }

    private func csvField(_ text: String) -> String {
        text.contains(",") || text.contains("\"") ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }
}

/// Links in the order they first appear.
func orderedLinks(_ rows: [ResultRow]) -> [String] {
    var seen: [String] = []
    for row in rows where !seen.contains(row.link) { seen.append(row.link) }
    return seen
}
