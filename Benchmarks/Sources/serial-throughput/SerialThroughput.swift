import ArgumentParser
import Foundation
import McuBoot
import McuMgr
import SMP
import SMPSerial
import SMPSimulator

/// Uploads an image through `SerialTransport`, a real pseudo-terminal and the simulator's serial
/// server with its baud-rate model, and prints the bytes/s beside what the line can carry.
@main
struct SerialThroughput: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serial-throughput",
        abstract: "Serial upload throughput against the simulator on a pty, beside the line's limit at each baud rate.",
        discussion: """
            The line's limit is baud/10 bytes/s (8N1) times the console framing's efficiency: \
            packet bytes over the bytes of their frames (base64 3:4, a 2-byte marker and a newline \
            per line, 4 bytes of length and CRC per packet). The payload limit also takes off each \
            upload request's SMP header and CBOR, as measured.
            """)

    @Option(help: "Image payload size in KiB.")
    var size = 192

    @Option(parsing: .upToNextOption, help: "Baud rates to measure.")
    var bauds: [Int] = [115_200, 1_000_000]

    @Option(help: "Device SMP buffer size (buf_size); packets are buf_size - 4 in console framing.")
    var bufSize = 2048

    @Option(help: "Device SMP buffer count (buf_count).")
    var bufCount = 4

    @Option(help: "Upload requests in flight (default: buf_count - 1).")
    var depth: Int?

    @Option(help: "Console line length (frame size with marker and newline).")
    var lineLength = ConsoleFrameEncoder.defaultLineLength

    @Flag(help: "Raw framing instead of console framing.")
    var raw = false

    func run() async throws {
        var builder = McuBootImageBuilder(
            payload: (0..<(size * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }, version: McuBootVersion(major: 2))
        builder.headerSize = 0x200
        let image = try builder.buildImage()
        let framing: SerialFraming = raw ? .raw : .console
        let packetSize = SerialConnectionOptions.packetSize(forDeviceBufferSize: bufSize, framing: framing)
        let encoder = try SerialPacketEncoder(framing: framing, lineLength: lineLength)
        let wire = encoder.encode(packetSizeOnly: packetSize)
        print("image \(image.bytes.count) bytes; \(framing) framing, \(lineLength)-byte lines; buf_size \(bufSize), buf_count \(bufCount), depth \(depth ?? max(1, bufCount - 1)); packets of \(packetSize) bytes = \(wire) bytes on the wire")
        print("")
        print("     baud   line B/s   packet limit B/s   payload limit B/s     upload B/s   % packet limit   % payload limit   requests")
        for baud in bauds {
            let result = try await measure(image: image, baud: baud, framing: framing, packetSize: packetSize)
            let line = Double(baud) / 10
            let packetLimit = line * Double(result.packetBytes) / Double(result.wireBytes)
            let payloadLimit = line * Double(image.bytes.count) / Double(result.wireBytes)
            print(String(
                format: "%9d  %9.0f   %16.0f   %17.0f   %12.0f   %13.1f %%   %14.1f %%   %8d",
                baud, line, packetLimit, payloadLimit, result.bytesPerSecond,
                result.bytesPerSecond / packetLimit * 100, result.bytesPerSecond / payloadLimit * 100, result.requests))
        }
    }

    /// One upload at `baud`: its image bytes per second and what the upload requests put on the wire.
    private func measure(image: McuBootImage, baud: Int, framing: SerialFraming, packetSize: Int) async throws
        -> (bytesPerSecond: Double, packetBytes: Int, wireBytes: Int, requests: Int)
    {
        var configuration = DeviceConfiguration()
        configuration.bufferSize = bufSize
        configuration.bufferCount = bufCount
        let device = SimulatedDevice(configuration: configuration)
        var running = McuBootImageBuilder(payload: Array(repeating: 0x5a, count: 4096), version: McuBootVersion(major: 1))
        running.headerSize = 0x200
        await device.install(try running.build(), image: 0, slot: 0)
        let server = try await SimulatorSerialServer.start(
            device: device, options: .init(framing: framing, lineLength: lineLength, baudRate: baud))
        let transport = try SerialTransport(options: SerialConnectionOptions(
            path: server.path, baudRate: 115_200, lineLength: lineLength, framing: framing, packetSize: packetSize))
        try await transport.connect()
        let client = SMPClient(transport: transport, configuration: SMPClient.Configuration(timeout: .seconds(5), retries: 2))
        let upgrade = FirmwareUpgradeConfiguration(
            mode: .uploadOnly, pipelineDepth: depth, requestsBootloaderInfo: false, chunkTimeout: .seconds(5))
        let start = ContinuousClock.now
        _ = try await FirmwareUpgradeManager(client: client).upgrade(images: [FirmwareUpgradeImage(image: image)], configuration: upgrade)
        let elapsed = ContinuousClock.now - start
        let uploads = await device.requestLog.filter { $0.group == 1 && $0.command == 1 }
        let encoder = try SerialPacketEncoder(framing: framing, lineLength: lineLength)
        let packetBytes = uploads.reduce(0) { $0 + $1.length + SMPHeader.size }
        let wireBytes = uploads.reduce(0) { $0 + encoder.encode(packetSizeOnly: $1.length + SMPHeader.size) }
        await client.close()
        await server.close()
        return (Double(image.bytes.count) / elapsed.seconds, packetBytes, wireBytes, uploads.count)
    }
}

extension SerialPacketEncoder {
    /// Bytes on the wire for a packet of `size` bytes.
    fileprivate func encode(packetSizeOnly size: Int) -> Int {
        framing == .console ? console.encodedSize(ofPacket: size) : size
    }
}
