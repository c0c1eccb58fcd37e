import ArgumentParser
import Foundation
import GATT
import Logging
import McuBoot
import McuMgr
import SMP
import SMPBLE
import SMPSimulator

/// Image upload over SMP/GATT against the simulator's peripheral through a socketpair, with the
/// BLE link model pacing writes and notifications; prints bytes/s next to the link's ceiling.
@main
struct BLEThroughput: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ble-throughput",
        abstract: "BLE upload throughput against the simulated GATT peripheral, beside the link's theoretical limit."
    )

    @Option(help: "Image payload size in KiB.")
    var size = 256

    @Option(help: "PHY: 1M or 2M.")
    var phy = "2M"

    @Flag(inversion: .prefixedNo, help: "Data length extension (251-byte link-layer payloads).")
    var dle = true

    @Option(help: "Connection interval in milliseconds (7.5 to 4000).")
    var interval = 7.5

    @Option(help: "Packets per connection event, per direction.")
    var packetsPerEvent = 6

    @Option(help: "Device link-layer buffers.")
    var buffers = 6

    @Option(parsing: .upToNextOption, help: "ATT MTUs to measure.")
    var mtus: [Int] = [247, 498]

    @Option(parsing: .upToNextOption, help: "Pipeline depths to measure.")
    var depths: [Int] = [1, 3]

    @Flag(inversion: .prefixedNo, help: "The device reassembles requests up to its buf_size.")
    var reassembly = true

    @Option(help: "Device SMP buffer size (buf_size).")
    var bufSize = 2475

    @Option(help: "Device SMP buffer count (buf_count).")
    var bufCount = 4

    func run() async throws {
        guard let phy = BLELinkModel.PHY(rawValue: phy) else { throw ValidationError("--phy is 1M or 2M") }
        let link = BLELinkModel(
            phy: phy, dataLengthExtension: dle, connectionInterval: .microseconds(Int(interval * 1000)),
            packetsPerConnectionEvent: packetsPerEvent, deviceBuffers: buffers)
        var builder = McuBootImageBuilder(payload: (0..<(size * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }, version: McuBootVersion(major: 2))
        builder.headerSize = 0x200
        let image = try builder.buildImage()
        print("image \(image.bytes.count) bytes; link \(link); packet time \(link.packetTime); buf_size \(bufSize), buf_count \(bufCount); reassembly \(reassembly ? "on" : "off")")
        print("")
        print("  mtu  depth   upload B/s   link limit B/s   of limit   requests")
        for mtu in mtus {
            for depth in depths {
                let limit = link.throughputLimit(mtu: mtu)
                do {
                    let (rate, requests) = try await measure(image: image, link: link, mtu: mtu, depth: depth)
                    print(String(format: "%5d  %5d   %10.0f   %14.0f   %7.1f %%   %8d", mtu, depth, rate, limit, 100 * rate / limit, requests))
                } catch {
                    print(String(format: "%5d  %5d          n/a   %14.0f", mtu, depth, limit) + "   (\(error))")
                }
            }
        }
        print("")
        print("link limit: ATT values per second when every connection event carries \(link.packetsPerEvent) packets each way;")
        print("the upload also pays SMP headers, CBOR, one response per request, and round trips at low depth.")
    }

    private func measure(image: McuBootImage, link: BLELinkModel, mtu: Int, depth: Int) async throws -> (Double, Int) {
        var quiet = Logger(label: "ble-throughput")
        quiet.logLevel = .error
        var configuration = DeviceConfiguration()
        configuration.bufferSize = bufSize
        configuration.bufferCount = bufCount
        let device = SimulatedDevice(configuration: configuration, logger: quiet)
        var running = McuBootImageBuilder(payload: Array(repeating: 0x5a, count: 4096), version: McuBootVersion(major: 1))
        running.headerSize = 0x200
        await device.install(try running.build(), image: 0, slot: 0)
        let peripheral = await SimulatorGATTPeripheral.start(
            device: device, configuration: GATTPeripheralConfiguration(maximumMTU: mtu, reassembly: reassembly, link: link), logger: quiet)
        let connector = BLEConnector("simulated peripheral") { () async throws(BLEError) -> any ATTBearer in
            do { return try await peripheral.connectSocketPair() } catch { throw .hostDown("\(error)") }
        }
        let transport = BLETransport(
            connector: connector, configuration: BLETransport.Configuration(preferredMTU: mtu, reassemblyBufferSize: reassembly ? bufSize : nil, deviceReassembles: reassembly),
            logger: quiet)
        try await transport.connect()
        let client = SMPClient(transport: transport, configuration: SMPClient.Configuration(timeout: .seconds(2), retries: 2), logger: quiet)
        let upgrade = FirmwareUpgradeConfiguration(mode: .uploadOnly, pipelineDepth: depth, requestsBootloaderInfo: false, chunkTimeout: .seconds(2))
        let report = try await FirmwareUpgradeManager(client: client, logger: quiet).upgrade(
            images: [FirmwareUpgradeImage(image: image)], configuration: upgrade)
        let requests = await device.requestsProcessed
        await client.close()
        await peripheral.close()
        return (report.averageBytesPerSecond, requests)
    }
}
