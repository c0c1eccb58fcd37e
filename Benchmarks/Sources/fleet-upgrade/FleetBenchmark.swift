import ArgumentParser
import Foundation
import Logging
import McuBoot
import McuMgr
import McuMgrConnection
import McuMgrFleet
import McuMgrTools
import SMP
import SMPTestSupport
import SMPUDP

#if canImport(Glibc)
import Glibc
#endif

/// Upgrades a fleet of simulated devices over UDP and measures the whole: wall time, aggregate
/// throughput, and the client's CPU per device (getrusage of this process; the devices run in a
/// child process of their own, whose CPU is reported apart).
@main
struct FleetBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet-upgrade",
        abstract: "Fleet upgrade of many simulated devices over UDP: wall time, aggregate bytes/s, client CPU per device.")

    @Option(help: "Simulated devices.")
    var devices = 100

    @Option(help: "Device response latency in milliseconds.")
    var latency = 20.0

    @Option(help: "Image payload size in KiB.")
    var size = 256

    @Option(help: "Device SMP buffer count (buf_count); the upload's depth is buf_count − 1.")
    var bufCount = 4

    @Option(parsing: .upToNextOption, help: "Concurrency limits to measure (0: all devices at once).")
    var concurrency: [Int] = [0]

    @Option(help: "Runs per concurrency limit; the table shows the run with the median wall time, and the range.")
    var runs = 3

    @Option(help: "Directory for fleet.md and fleet.csv (nothing written when empty).")
    var results = "results"

    @Option(help: "The first device's address; the others follow it (each on a port of its own).")
    var firstAddress = "127.0.60.2"

    func run() async throws {
        print("devices: \(try BuiltProducts.require("mcumgr-sim")) --devices \(devices)")
        _ = Report.loadAverage  // read before the runs
        var builder = McuBootImageBuilder(payload: (0..<(size * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }, version: McuBootVersion(major: 2))
        builder.headerSize = 0x200
        let image = try builder.buildImage()
        var rows: [Measurement] = []
        for limit in concurrency {
            var measured: [Measurement] = []
            for _ in 0..<max(runs, 1) {
                let childrenBefore = CPUTime.children()
                let simulator = try FleetSimulator.start(count: devices, first: firstAddress, latency: latency, bufferCount: bufCount)
                var row: Measurement
                do {
                    row = try await measure(image: image, endpoints: try await simulator.endpoints(count: devices), limit: limit == 0 ? nil : limit)
                } catch {
                    await simulator.stop()
                    throw error
                }
                await simulator.stop()
                row.deviceCPU = CPUTime.children() - childrenBefore
                print(row.line)
                measured.append(row)
            }
            let sorted = measured.sorted { $0.wallSeconds < $1.wallSeconds }
            var median = sorted[sorted.count / 2]
            median.wallRange = (sorted.first!.wallSeconds, sorted.last!.wallSeconds)
            median.runs = sorted.count
            rows.append(median)
        }
        let report = Report(rows: rows, devices: devices, latency: latency, imageBytes: image.bytes.count, bufCount: bufCount)
        print("")
        print(report.markdown)
        if !results.isEmpty {
            try FileManager.default.createDirectory(atPath: results, withIntermediateDirectories: true)
            try Data(report.markdown.utf8).write(to: URL(fileURLWithPath: results + "/fleet.md"))
            try Data(report.csv.utf8).write(to: URL(fileURLWithPath: results + "/fleet.csv"))
            print("written to \(results)/fleet.md and \(results)/fleet.csv")
        }
    }

    private func measure(image: McuBootImage, endpoints: [UDPEndpoint], limit: Int?) async throws -> Measurement {
        var quiet = Logger(label: "fleet-benchmark")
        quiet.logLevel = .critical
        let connector = FleetConnector(options: ConnectionOptions(
            clientConfiguration: SMPClient.Configuration(timeout: .seconds(5), retries: 2), logger: quiet))
        let configuration = FleetConfiguration(
            upgrade: FirmwareUpgradeConfiguration(chunkTimeout: .seconds(2)), concurrency: FleetConcurrency(limit: limit))
        let fleet = try FleetUpgrade(
            devices: endpoints.map { FleetDevice(.udp($0)) }, images: [FirmwareUpgradeImage(image: image)],
            configuration: configuration, connector: connector, logger: quiet)
        let cpuBefore = CPUTime.process()
        let started = ContinuousClock.now
        let report = await fleet.run()
        let wall = (ContinuousClock.now - started).seconds
        let cpu = CPUTime.process() - cpuBefore
        guard report.succeeded else {
            throw ValidationError("the fleet did not fully succeed:\n\(report.summary)")
        }
        return Measurement(
            concurrency: limit, devices: endpoints.count, wallSeconds: wall, bytes: report.bytesUploaded,
            clientCPU: cpu, deviceCPU: nil)
    }
}

/// One fleet run's figures.
struct Measurement {
    let concurrency: Int?
    let devices: Int
    let wallSeconds: Double
    let bytes: Int
    let clientCPU: CPUTime
    var deviceCPU: CPUTime?
    /// The fastest and slowest wall times of the runs this one is the median of.
    var wallRange: (Double, Double)?
    /// How many runs.
    var runs = 1

    var bytesPerSecond: Double { Double(bytes) / wallSeconds }
    var cpuPerDevice: Double { clientCPU.total / Double(devices) }

    var line: String {
        let limit = concurrency.map(String.init) ?? "all"
        return String(
            format: "concurrency %@: %d devices in %.2f s, %.1f KiB/s aggregate, client CPU %.2f s (user %.2f, sys %.2f) = %.1f ms per device",
            limit, devices, wallSeconds, bytesPerSecond / 1024, clientCPU.total, clientCPU.user, clientCPU.system, cpuPerDevice * 1000)
    }
}

/// The results as Markdown and CSV.
struct Report {
    let rows: [Measurement]
    let devices: Int
    let latency: Double
    let imageBytes: Int
    let bufCount: Int

    var markdown: String {
        var text = """
            # Fleet upgrade benchmark

            `swift run -c release fleet-upgrade` (Benchmarks/Sources/fleet-upgrade): \(devices) simulated devices
            (`mcumgr-sim --devices`, one UDP address each, in a child process), \
            \(Int(latency)) ms response latency, buf_count \(bufCount) (depth \(max(bufCount - 1, 1))), one \(imageBytes)-byte \
            image each, test-and-confirm (upload, test, reset, confirm) through `FleetUpgrade` over UDP (SwiftNIO).
            Wall time is the whole fleet; aggregate bytes/s is image bytes of all devices over the wall time;
            client CPU is getrusage(RUSAGE_SELF) of the benchmark process (the devices' CPU is the child's, apart).
            Machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, shared with other work while measured (load average \
            before the run: \(Self.loadAverage)).

            Each row is the run with the median wall time of its runs; the range is the fastest and slowest.

            | concurrency | devices | runs | wall time (s) | range (s) | aggregate KiB/s | client CPU (s) | client CPU per device (ms) | device process CPU (s) |
            |---|---|---|---|---|---|---|---|---|

            """
        for row in rows {
            let range = row.wallRange.map { String(format: "%.2f–%.2f", $0.0, $0.1) } ?? "-"
            text += String(
                format: "| %@ | %d | %d | %.2f | %@ | %.1f | %.2f | %.1f | %@ |\n", row.concurrency.map(String.init) ?? "all", row.devices,
                row.runs, row.wallSeconds, range, row.bytesPerSecond / 1024, row.clientCPU.total, row.cpuPerDevice * 1000,
                row.deviceCPU.map { String(format: "%.2f", $0.total) } ?? "-")
        }
        return text
    }

    /// The 1, 5 and 15 minute load averages, from /proc/loadavg.
    static let loadAverage: String = {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }()

    var csv: String {
        var text = "concurrency,devices,runs,latency_ms,image_bytes,wall_seconds,wall_min_seconds,wall_max_seconds,aggregate_bytes_per_second,client_cpu_seconds,client_cpu_user_seconds,client_cpu_system_seconds,client_cpu_per_device_ms,device_process_cpu_seconds\n"
        for row in rows {
            text += String(
                format: "%@,%d,%d,%.0f,%d,%.3f,%.3f,%.3f,%.0f,%.3f,%.3f,%.3f,%.2f,%@\n", row.concurrency.map(String.init) ?? "all", row.devices,
                row.runs, latency, imageBytes, row.wallSeconds, row.wallRange?.0 ?? row.wallSeconds, row.wallRange?.1 ?? row.wallSeconds,
                row.bytesPerSecond, row.clientCPU.total, row.clientCPU.user, row.clientCPU.system,
                row.cpuPerDevice * 1000, row.deviceCPU.map { String(format: "%.3f", $0.total) } ?? "")
        }
        return text
    }
}

/// User and system CPU time, from getrusage.
struct CPUTime {
    let user: Double
    let system: Double

    var total: Double { user + system }

    static func process() -> CPUTime { read(RUSAGE_SELF.rawValue) }
    static func children() -> CPUTime { read(RUSAGE_CHILDREN.rawValue) }

    private static func read(_ who: __rusage_who_t) -> CPUTime {
        var usage = rusage()
        getrusage(who, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return CPUTime(user: seconds(usage.ru_utime), system: seconds(usage.ru_stime))
    }

    static func - (lhs: CPUTime, rhs: CPUTime) -> CPUTime {
        CPUTime(user: lhs.user - rhs.user, system: lhs.system - rhs.system)
    }
}
