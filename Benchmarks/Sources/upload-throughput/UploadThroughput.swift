import ArgumentParser
import Foundation
import McuBoot
import McuMgr
import SMP
import SMPSimulator

/// Measures image upload throughput against the simulator across pipeline depths and
/// alignments, over a modelled link, and prints a table.
@main
struct UploadThroughput: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload-throughput",
        abstract: "Upload throughput against the simulated device, by pipeline depth and alignment."
    )

    @Option(help: "Image payload size in KiB.")
    var size = 256

    @Option(help: "One-way link latency in milliseconds.")
    var latency = 5.0

    @Option(help: "Link bandwidth in bytes per second (0: unlimited).")
    var bandwidth = 0

    @Option(help: "Device SMP buffer size (buf_size).")
    var bufSize = 2048

    @Option(help: "Device SMP buffer count (buf_count).")
    var bufCount = 9

    @Option(help: "Transport packet limit (e.g. 1472 for UDP, 244 for BLE without reassembly).")
    var mtu = 1472

    @Option(help: "Percent of packets dropped in each direction.")
    var drop = 0.0

    @Option(parsing: .upToNextOption, help: "Pipeline depths to measure.")
    var depths: [Int] = [1, 2, 4, 8]

    @Option(parsing: .upToNextOption, help: "Byte alignments to measure.")
    var alignments: [Int] = [1, 4]

    @Option(help: "Runs per cell; the table shows the median.")
    var runs = 3

    func run() async throws {
        var builder = McuBootImageBuilder(payload: (0..<(size * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }, version: McuBootVersion(major: 2))
        builder.headerSize = 0x200
        let image = try builder.buildImage()
        print("image \(image.bytes.count) bytes; latency \(latency) ms; bandwidth \(bandwidth == 0 ? "unlimited" : "\(bandwidth) B/s"); buf_size \(bufSize), buf_count \(bufCount); mtu \(mtu); drop \(drop) %")
        print("")
        print("depth  align   KiB/s (median of \(runs))   requests   peak in flight")
        for depth in depths {
            for alignment in alignments {
                var rates: [Double] = []
                var requests = 0
                var peak = 0
                for _ in 0..<runs {
                    let (rate, seen, inFlight) = try await measure(image: image, depth: depth, alignment: alignment)
                    rates.append(rate)
                    requests = seen
                    peak = inFlight
                }
                let median = rates.sorted()[rates.count / 2]
                print(String(format: "%5d  %5d   %12.1f            %8d   %5d", depth, alignment, median / 1024, requests, peak))
            }
        }
    }

    private func measure(image: McuBootImage, depth: Int, alignment: Int) async throws -> (Double, Int, Int) {
        var configuration = DeviceConfiguration()
        configuration.bufferSize = bufSize
        configuration.bufferCount = bufCount
        let link = LinkConfiguration(latency: .microseconds(Int(latency * 1000)), bandwidth: bandwidth == 0 ? nil : bandwidth)
        var faults = FaultConfiguration()
        faults.dropPercent = drop
        let device = SimulatedDevice(configuration: configuration, link: link, faults: faults)
        var running = McuBootImageBuilder(payload: Array(repeating: 0x5a, count: 4096), version: McuBootVersion(major: 1))
        running.headerSize = 0x200
        await device.install(try running.build(), image: 0, slot: 0)
        let transport = await device.makeLoopbackTransport(maximumPacketSize: mtu)
        let client = SMPClient(transport: transport, configuration: SMPClient.Configuration(timeout: .seconds(1), retries: 2))
        let upgrade = FirmwareUpgradeConfiguration(
            mode: .uploadOnly, pipelineDepth: depth, byteAlignment: alignment, requestsBootloaderInfo: false,
            chunkTimeout: .milliseconds(Int(max(200, latency * 8)))
        )
        let report = try await FirmwareUpgradeManager(client: client).upgrade(images: [FirmwareUpgradeImage(image: image)], configuration: upgrade)
        let requests = await device.requestsProcessed
        let peak = await device.maximumRequestsInFlight
        await client.close()
        return (report.averageBytesPerSecond, requests, peak)
    }
}
