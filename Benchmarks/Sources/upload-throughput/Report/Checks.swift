/// One acceptance check of issue 13, judged on this run's numbers.
struct Check {
    let name: String
    /// nil when the rows it needs were not measured.
    let passed: Bool?
    let detail: String

    var markdown: String {
        let mark = passed.map { $0 ? "PASS" : "FAIL" } ?? "n/a"
        return "**\(mark)** \(name): \(detail)"
    }
}

/// The checks the issue asks for, read from the result rows.
struct Checks {
    let rows: [ResultRow]

    func evaluate() -> [Check] {
        var checks: [Check] = []
        let engine = rows.filter { $0.section == .engine }
        // Depth 4 within the device's buffers reaches 90 % of the link's limit.
        for row in engine where row.depth == 4 && row.bufferCount >= 4 {
            guard let ratio = row.ratioToLimit else { continue }
            checks.append(Check(name: "\(row.link): depth 4 ≥ 90 % of the limit", passed: ratio >= 0.9,
                                detail: "\(TextFormat.rate(row.bytesPerSecond)) of \(TextFormat.rate(row.limit)) = \(TextFormat.percent(ratio))"))
        }
        // Depth beyond the device's buffers.
        let small = engine.filter { $0.link.hasPrefix("UDP 5 ms") && $0.bufferCount == 4 }
        if let three = small.first(where: { $0.depth == 3 })?.bytesPerSecond, let eight = small.first(where: { $0.depth == 8 })?.bytesPerSecond {
            checks.append(Check(name: "UDP 5 ms, buf_count 4: depth 8 ≥ 95 % of depth 3", passed: eight >= 0.95 * three,
                                detail: "\(TextFormat.rate(eight)) against \(TextFormat.rate(three)) = \(TextFormat.percent(eight / three))"))
        }
        let tools = rows.filter { $0.section == .tools }
        for link in orderedLinks(tools) {
            let linkRows = tools.filter { $0.link == link }
            let ours = linkRows.first { $0.tool.hasPrefix("mcumgr (") && $0.depth == nil }
            let oursOne = linkRows.first { $0.tool.hasPrefix("mcumgr (") && $0.depth == 1 }
            let peers = linkRows.filter { !$0.tool.hasPrefix("mcumgr (") }
            if let ours, let rate = ours.bytesPerSecond, !peers.isEmpty {
                let best = peers.compactMap(\.bytesPerSecond).max() ?? 0
                // Name what ran: one peer (a smoke run, or a peer missing) is not "both".
                let against = peers.count == 1 ? peers[0].tool : peers.count == 2 ? "both peers" : "all \(peers.count) peers"
                checks.append(Check(name: "\(link): our default depth beats \(against)", passed: rate > best,
                                    detail: "\(TextFormat.rate(rate)) against the best peer's \(TextFormat.rate(best))"))
            }
            if let oursOne, let rate = oursOne.bytesPerSecond {
                for peer in peers where peer.frame == oursOne.frame {
                    guard let theirs = peer.bytesPerSecond else { continue }
                    checks.append(Check(name: "\(link): our depth 1 not slower than \(peer.tool)", passed: rate >= theirs,
                                        detail: "\(TextFormat.rate(rate)) against \(TextFormat.rate(theirs)) (\(TextFormat.ratio(rate / theirs)))"
                                            + Self.runRanges(oursOne, peer)))
                }
            }
            if link.hasPrefix("UDP 20 ms"), let rate = ours?.bytesPerSecond,
               let smpmgr = peers.first(where: { $0.tool.hasPrefix("smpmgr") })?.bytesPerSecond {
                checks.append(Check(name: "\(link), buf_count \(ours?.bufferCount ?? 0): our default depth ≥ 10× smpmgr", passed: rate >= 10 * smpmgr,
                                    detail: "\(TextFormat.rate(rate)) against \(TextFormat.rate(smpmgr)) (\(TextFormat.ratio(rate / smpmgr)))"))
            }
        }
        let cpu = rows.filter { $0.section == .cpu }
        if let ours = cpu.first(where: { $0.tool.hasPrefix("mcumgr (") && $0.depth == nil })?.cpuPerMiB,
           let toolkit = cpu.first(where: { $0.tool.hasPrefix("mcumgr-toolkit") })?.cpuPerMiB {
            checks.append(Check(name: "client CPU per MiB ≤ mcumgr-toolkit's", passed: ours <= toolkit,
                                detail: "\(TextFormat.fixed(ours, 3)) s/MiB against \(TextFormat.fixed(toolkit, 3)) s/MiB"))
        }
        return checks
    }

    /// The two rows' slowest and fastest runs when they overlap, so that a tie within the
    /// run-to-run spread reads as one: `; runs overlap: 270.0–279.5 kB/s against 270.4–274.8 kB/s`.
    static func runRanges(_ ours: ResultRow, _ peer: ResultRow) -> String {
        guard let (ourLow, ourHigh) = ours.spread, let (peerLow, peerHigh) = peer.spread,
              ours.samples.count > 1, peer.samples.count > 1, ourLow <= peerHigh, peerLow <= ourHigh
        else { return "" }
        return "; runs overlap: \(TextFormat.rate(ourLow))–\(TextFormat.rate(ourHigh)) against \(TextFormat.rate(peerLow))–\(TextFormat.rate(peerHigh))"
    }
}
