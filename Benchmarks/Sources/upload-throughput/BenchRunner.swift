import Foundation

/// Runs a plan: every row `runs` times, round-robin (so a load spike on the machine spreads over
/// rows instead of sinking one), then writes the tables, the CSV and the plot.
struct BenchRunner {
    /// Tool rows whose first run takes longer than this many seconds are not repeated.
    static let singleRunSeconds = 20.0
    /// Tool rows whose median whole command takes less than this many seconds get runs up to
    /// `plan.shortRuns`: three runs of a command this short are three draws of start-up and
    /// scheduling noise (which core each process wakes on), not a measurement of the client.
    static let shortCommandSeconds = 1.0

    let plan: BenchPlan
    let output: URL
    var rows: [ResultRow] = []
    var machine = MachineInfo.current()

    init(plan: BenchPlan, output: URL) {
        self.plan = plan
        self.output = output
    }

    mutating func run() async throws {
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let imageDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("upload-throughput-images-\(getpid())")
        defer { try? FileManager.default.removeItem(at: imageDirectory) }
        var images: [Int: TestImage] = [:]
        for kib in Set(plan.engineRows.map(\.imageKiB) + plan.toolRows.map(\.imageKiB)) {
            images[kib] = try await TestImage.make(payloadSize: kib * 1024, slotSize: BenchPlan.slotSize, in: imageDirectory)
        }
        print("upload-throughput: \(plan.engineRows.count) engine rows, \(plan.toolRows.count) tool rows, \(plan.runs) runs each; load \(machine.loadBefore)")

        for row in plan.engineRows {
            let image = images[row.imageKiB]!
            let chunk = ChunkGeometry.chunk(packet: row.link.packetSize, imageSize: image.bytes.count)
            let window = row.depth ?? min(max(row.link.buffers.count - 1, 1), 32)
            rows.append(ResultRow(
                section: .engine, family: row.link.family, link: row.link.label, tool: "engine", depth: row.depth,
                depthLabel: row.depth.map(String.init) ?? "default (\(window))", frame: row.link.packetSize,
                bufferCount: row.link.buffers.count, imageBytes: image.bytes.count, chunk: chunk,
                limit: row.link.limit(window: window, chunk: chunk, packet: row.link.packetSize)))
        }
        for row in plan.toolRows {
            let image = images[row.imageKiB]!
            var frame: Int?
            if case .bytes(let n) = row.variant.frame { frame = n }
            let isOurs = row.variant.tool == .mcumgr
            let window = row.variant.depth ?? min(max(row.link.buffers.count - 1, 1), 32)
            rows.append(ResultRow(
                section: row.section, family: row.link.family, link: row.link.label, tool: row.variant.label, depth: row.variant.depth,
                depthLabel: isOurs ? (row.variant.depth.map(String.init) ?? "default (\(window))") : "1 (stop-and-wait)", frame: frame,
                bufferCount: row.link.buffers.count, imageBytes: image.bytes.count, chunk: nil, limit: nil))
        }

        let engineCount = plan.engineRows.count
        let started = ContinuousClock.now
        for run in 1...plan.runs {
            for (index, row) in plan.engineRows.enumerated() where rows[index].failure == nil {
                let label = "[\(run)/\(plan.runs)] engine \(row.link.label) depth \(rows[index].depthLabel)"
                do {
                    let sample = try await EngineRun.upload(images[row.imageKiB]!, on: row.link, depth: row.depth)
                    rows[index].samples.append(sample)
                    print("\(label): \(TextFormat.rate(sample.bytesPerSecond)) in \(TextFormat.fixed(sample.wallSeconds, 2)) s")
                } catch {
                    rows[index].failure = "\(error)"
                    print("\(label): FAILED \(error)")
                }
            }
            for (offset, row) in plan.toolRows.enumerated() where rows[engineCount + offset].failure == nil {
                // A whole command that took longer than `singleRunSeconds` is measured once: its
                // spread is small against its length, and repeating it would cost minutes.
                if let first = rows[engineCount + offset].samples.first, first.wallSeconds > Self.singleRunSeconds { continue }
                await measure(row, at: engineCount + offset, images: images, label: "[\(run)/\(plan.runs)]")
            }
        }
        // Short commands: more runs, still round-robin over every such row.
        let short = plan.toolRows.indices.filter { offset in
            let row = rows[engineCount + offset]
            return row.failure == nil && (row.wallSeconds ?? .infinity) < Self.shortCommandSeconds
        }
        if plan.shortRuns > plan.runs, !short.isEmpty {
            for run in (plan.runs + 1)...plan.shortRuns {
                for offset in short where rows[engineCount + offset].failure == nil {
                    await measure(plan.toolRows[offset], at: engineCount + offset, images: images, label: "[\(run)/\(plan.shortRuns)]")
                }
            }
        }
        machine.loadAfter = MachineInfo.loadAverage()
        let elapsed = started.duration(to: .now).seconds
        print("measured in \(TextFormat.fixed(elapsed, 0)) s; load \(machine.loadAfter)")

        let report = Report(rows: rows, machine: machine, runs: plan.runs, shortRuns: plan.shortRuns, elapsedSeconds: elapsed)
        let checks = Checks(rows: rows).evaluate()
        try report.markdown(checks: checks).write(to: output.appendingPathComponent("results.md"), atomically: true, encoding: .utf8)
        try report.csv().write(to: output.appendingPathComponent("results.csv"), atomically: true, encoding: .utf8)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(ReportJSON(machine: machine, rows: rows)).write(to: output.appendingPathComponent("results.json"))
        if plan.drawsPlot {
            do {
                try await Plot(rows: rows, machine: machine).draw(to: output)
            } catch {
                print("plot: \(error)")
            }
        }
        print("")
        print(report.markdown(checks: checks))
        if rows.contains(where: { $0.failure != nil }) {
            throw BenchError("some rows failed (see above)")
        }
    }
}

extension BenchRunner {
    /// Runs one tool row once and records its sample (or its failure).
    mutating func measure(_ row: BenchPlan.ToolRow, at index: Int, images: [Int: TestImage], label prefix: String) async {
        let label = "\(prefix) \(row.variant.label) \(row.link.label) depth \(rows[index].depthLabel)"
        do {
            guard let sample = try await row.variant.upload(images[row.imageKiB]!, on: row.link) else {
                rows[index].failure = "cannot reach \(row.link.label)"
                return
            }
            rows[index].samples.append(sample)
            print("\(label): \(TextFormat.rate(sample.bytesPerSecond)), \(TextFormat.fixed(sample.wallSeconds, 2)) s, CPU \(TextFormat.fixed(sample.cpuSeconds, 3)) s")
        } catch {
            rows[index].failure = "\(error)"
            print("\(label): FAILED \(error)")
        }
    }
}

struct ReportJSON: Codable {
    let machine: MachineInfo
    let rows: [ResultRow]
}
