import ArgumentParser
import Foundation
import Logging
import SMPUDP

/// Upload throughput of our engine over real sockets and timed link models, beside each link's
/// theoretical limit and beside smpmgr and mcumgr-toolkit uploading the same image to the same
/// simulator; writes Markdown, CSV and a plot under `--output`.
@main
struct UploadThroughput: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload-throughput",
        abstract: "Upload bytes/s by link and pipeline depth, against each link's limit and against smpmgr and mcumgr-toolkit.",
        discussion: """
            Every run starts a fresh release-built mcumgr-sim (so each upload starts from an empty \
            slot) and uploads one imgtool image. Engine rows time ImageManager.upload in this \
            process; tool rows time whole commands (our mcumgr CLI, smpmgr, mcumgr-toolkit) and \
            read their CPU from wait4. Results: results.md, results.csv, results.json and \
            upload-throughput.png in --output.
            """)

    @Option(help: "Image payload size in KiB for the UDP rows.")
    var size = 512

    @Option(help: "Image payload size in KiB for the client-CPU rows (1 MiB by default).")
    var cpuSize = 1024

    @Option(help: "Image payload size in KiB for the serial rows (a 115200-baud line moves about 8 kB/s).")
    var serialSize = 32

    @Option(help: "Smallest image payload in KiB for the BLE rows (1M without DLE moves under 30 kB/s); faster links get about 2 s of their air ceiling, up to 512 KiB.")
    var bleSize = 48

    @Option(help: "Runs per row; tables show the median.")
    var runs = 3

    @Option(help: "Runs of a side-by-side row whose whole command takes under a second (start-up and scheduling noise dominate such a command).")
    var shortRuns = 11

    @Option(parsing: .upToNextOption, help: "Links to measure: udp, serial, ble.")
    var links: [String] = ["udp", "ble", "serial"]

    @Option(parsing: .upToNextOption, help: "Pipeline depths of the engine rows.")
    var depths: [Int] = [1, 2, 3, 4, 6, 8]

    @Option(parsing: .upToNextOption, help: "Serial pipeline depths (the line, not the round trip, is the limit past 2).")
    var serialDepths: [Int] = [1, 2, 4]

    @Option(parsing: .upToNextOption, help: "UDP response latencies in milliseconds.")
    var latencies: [Double] = [0, 5, 20]

    @Option(parsing: .upToNextOption, help: "Serial baud rates.")
    var bauds: [Int] = [115_200, 1_000_000]

    @Option(help: "The device's buf_count for the depth sweep and the side-by-side rows.")
    var bufCount = 16

    @Option(help: "The device's buf_size.")
    var bufSize = 2048

    @Flag(inversion: .prefixedNo, help: "Run smpmgr, mcumgr-toolkit and our CLI side by side.")
    var tools = true

    @Flag(help: "One tiny row of each kind (CI smoke run: the command works; no timing is judged).")
    var smoke = false

    @Option(help: "Directory for the results.")
    var output = "results"

    @Flag(inversion: .prefixedNo, help: "Draw the PNG plot with gnuplot.")
    var plot = true

    @Option(help: "Log level of the engine and the session on standard error (trace, debug, info, …).")
    var logLevel = "error"

    /// Runs on one event-loop thread, as our `mcumgr` does: the engine rows measure the engine
    /// and its socket, not hand-offs between SwiftNIO's thread and the concurrency pool.
    static func main() async {
        UDPTransport.runConcurrencyOnOneEventLoopThread()
        await main(nil)
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .error
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let plan = smoke ? BenchPlan.smoke(self) : BenchPlan(self)
        var runner = BenchRunner(plan: plan, output: URL(fileURLWithPath: output))
        try await runner.run()
    }
}
