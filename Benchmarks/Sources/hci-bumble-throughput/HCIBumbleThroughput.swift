import ArgumentParser
import Foundation
import Logging
import McuBoot
import McuMgr
import McuMgrTools
import SMP

#if canImport(Glibc)
import Glibc
#endif

/// Image upload through our LE host over HCI on bumble's virtual link, to a bumble SMP peripheral
/// bridging to `mcumgr-sim`, beside smpclient's own bumble transport uploading the same image to
/// the same peripheral. Prints bytes/s; the virtual link has no radio timing, so this measures the
/// hosts, not a radio.
@main
struct HCIBumbleThroughput: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hci-bumble-throughput",
        abstract: "Upload throughput of our HCI host and of smpclient's bumble transport over bumble's virtual link.")

    @Option(help: "The package root (for .venv and the peripheral script).")
    var root = ".."

    @Option(help: "The mcumgr-sim executable.")
    var simulator = "../.build/debug/mcumgr-sim"

    @Option(help: "Image payload size in KiB.")
    var size = 220

    @Option(parsing: .upToNextOption, help: "Pipeline depths for our host.")
    var depths: [Int] = [1, 3]

    @Flag(help: "Skip smpclient's bumble transport.")
    var noSmpclient = false

    func run() async throws {
        let python = root + "/.venv/bin/python"
        let address = "127.78.\(UInt8.random(in: 1...254)).\(UInt8.random(in: 1...254))"
        let ports = [Int.random(in: 20_000...29_999), Int.random(in: 30_000...39_999)]
        let image = try makeImage()
        let imagePath = FileManager.default.temporaryDirectory.appendingPathComponent("hci-bench-\(getpid()).bin")
        try Data(image.bytes).write(to: imagePath)
        defer { try? FileManager.default.removeItem(at: imagePath) }

        let sim = try launch(simulator, ["--udp", "\(address):1337", "--boot-time", "200", "--quiet", "--exit-on-eof"])
        let controllers = try launch(python, [
            "-c", "import os, runpy, signal, sys, threading\nsignal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})\n"
                + "threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()\n"
                + "sys.argv = ['c'] + sys.argv[1:]\nrunpy.run_module('bumble.apps.controllers', run_name='__main__')",
            "tcp-server:\(address):\(ports[0])", "tcp-server:\(address):\(ports[1])",
        ])
        try await Task.sleep(for: .seconds(1))
        let peripheral = try launch(python, [
            root + "/Tests/InteropTests/Peers/bumble_smp_peripheral.py", "--transport", "tcp-client:\(address):\(ports[0])", "--sim", "\(address):1337",
        ])
        defer { [peripheral, controllers, sim].forEach { $0.process.terminate() } }
        try await Task.sleep(for: .seconds(3))

        print("Upload of \(image.bytes.count) bytes through bumble's virtual link (27-byte ACL buffers, ATT MTU 498)")
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let spec = ConnectionSpec.ble(BLEConnectionParameters(peer: .name("smp-sim"), controller: .tcp(host: address, port: ports[1])))
        for depth in depths {
            let connection = try await ConnectionFactory.standard.connect(
                spec, options: ConnectionOptions(clientConfiguration: SMPClient.Configuration(timeout: .seconds(5), retries: 3), logger: logger))
            _ = try await ImageManager(client: connection.client).erase(slot: 1)
            let start = ContinuousClock.now
            try await ImageManager(client: connection.client).upload(data: image.bytes, configuration: UploadConfiguration(pipelineDepth: depth))
            let seconds = (ContinuousClock.now - start).seconds
            await connection.close()
            print(String(format: "  swift-mcumgr over HCI, depth %d: %8.1f KiB/s (%.2f s)", depth, Double(image.bytes.count) / seconds / 1024, seconds))
        }
        guard !noSmpclient else { return }
        let script = """
            import asyncio, sys, time
            from smpclient import SMPClient
            from smpclient.transport.bumble import SMPBumbleTransport
            from smpclient.requests.image_management import ImageErase
            async def main():
                hci, address, path = sys.argv[1:4]
                image = open(path, 'rb').read()
                async with SMPClient(SMPBumbleTransport(hci=hci, preferred_mtu=498), address, timeout_s=10) as client:
                    await client.request(ImageErase(slot=1))
                    start = time.monotonic()
                    async for _ in client.upload(image):
                        pass
                    print(len(image) / (time.monotonic() - start))
            asyncio.run(main())
            """
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("hci-bench-\(getpid()).out")
        let smpclient = try launch(python, ["-c", script, "tcp-client:\(address):\(ports[1])", "F0:F1:F2:F3:F4:F5", imagePath.path], stdout: output)
        while smpclient.process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        if let rate = text.split(separator: "\n").last.flatMap({ Double($0) }) {
            print(String(format: "  smpclient's bumble transport:      %8.1f KiB/s (stop-and-wait)", rate / 1024))
        } else {
            print("  smpclient's bumble transport: failed (status \(smpclient.process.terminationStatus))\n\(text)")
        }
    }

    private func makeImage() throws -> McuBootImage {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        let payload = (0..<(size * 1024)).map { _ -> UInt8 in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
        var builder = McuBootImageBuilder(payload: payload, version: McuBootVersion(string: "1.2.3")!)
        builder.headerSize = 0x200
        return try builder.buildImage()
    }

    private struct Child { let process: Process }

    /// Starts a child with a lifeline on standard input, so it ends when this process does.
    private func launch(_ executable: String, _ arguments: [String], stdout: URL? = nil) throws -> Child {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = Pipe()
        if let stdout {
            _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: stdout)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        process.standardError = FileHandle.nullDevice
        try process.run()
        return Child(process: process)
    }
}
