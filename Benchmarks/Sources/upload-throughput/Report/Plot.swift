import Foundation
import SMPTestSupport

/// bytes/s against pipeline depth, one panel per link, with the link's limit drawn dashed;
/// gnuplot (Debian's gnuplot-nox) draws `upload-throughput.png`.
struct Plot {
    let rows: [ResultRow]
    let machine: MachineInfo

    func draw(to directory: URL) async throws {
        let engine = rows.filter { $0.section == .engine && $0.depth != nil && $0.bytesPerSecond != nil }
        // Links measured at three depths or more (the others are single points of a sweep).
        let links = orderedLinks(engine).filter { link in Set(engine.filter { $0.link == link }.compactMap(\.depth)).count >= 3 }
        guard !links.isEmpty else { return }
        let dataDirectory = directory.appendingPathComponent("plot-data")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let columns = min(3, links.count)
        let rowsOfPanels = (links.count + columns - 1) / columns
        var script = [
            "set terminal pngcairo size \(520 * columns),\(380 * rowsOfPanels + 40) font 'DejaVu Sans,10' noenhanced",
            "set output '\(directory.appendingPathComponent("upload-throughput.png").path)'",
            "set datafile missing '?'",
            "set multiplot layout \(rowsOfPanels),\(columns) title 'swift-mcumgr upload throughput by pipeline depth (\(machine.date.prefix(10)), load \(machine.loadBefore))'",
            "set xlabel 'pipeline depth'",
            "set ylabel 'kB/s of image'",
            "set xrange [0.5:8.5]",
            "set xtics 1",
            "set yrange [0:*]",
            "set grid",
            "set key bottom right",
        ]
        for (index, link) in links.enumerated() {
            let points = engine.filter { $0.link == link }.sorted { $0.depth! < $1.depth! }
            let data = points.map { row in
                "\(row.depth!) \(String(format: "%.3f", row.bytesPerSecond! / 1000)) \(row.limit.map { String(format: "%.3f", $0 / 1000) } ?? "?")"
            }.joined(separator: "\n") + "\n"
            let file = dataDirectory.appendingPathComponent("link-\(index).dat")
            try data.write(to: file, atomically: true, encoding: .utf8)
            let bufferCount = points.first?.bufferCount ?? 0
            script.append("set title '\(link) (buf_count \(bufferCount))'")
            var plots = ["'\(file.path)' using 1:2 with linespoints lw 2 pt 7 title 'our engine (median)'"]
            if points.contains(where: { $0.limit != nil }) {
                plots.append("'\(file.path)' using 1:3 with lines dt 2 lw 2 title 'link limit'")
            }
            script.append("plot " + plots.joined(separator: ", "))
        }
        script.append("unset multiplot")
        let scriptFile = dataDirectory.appendingPathComponent("plot.gp")
        try (script.joined(separator: "\n") + "\n").write(to: scriptFile, atomically: true, encoding: .utf8)
        let gnuplot = ["/usr/bin/gnuplot", "/usr/local/bin/gnuplot"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let gnuplot else { throw BenchError("gnuplot is not installed (make bench installs gnuplot-nox)") }
        let run = try await Subprocess.run(gnuplot, [scriptFile.path])
        guard run.status == 0 else { throw BenchError("gnuplot failed:\n\(run)") }
    }
}
