import ArgumentParser
import Foundation
import Logging
import McuBoot
import McuMgr
import McuMgrTools
import SMP
import SMPTestSupport

/// Image upload through our LE host over HCI on bumble's virtual link, to a bumble SMP peripheral
/// bridging to `mcumgr-sim`, beside smpclient's own bumble transport uploading the same image to
/// the same peripheral. Prints bytes/s; the virtual link has no radio timing, so this measures the
/// hosts, not a radio.
@main
struct HCIBumbleThroughput: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hci-bumble-throughput",
        abstract: "Upload throughput of our HCI host and of smpclient's bumble transport over bumble's virtual link.",
        discussion: """
            mcumgr-sim is found as the tests find it: in $MCUMGR_BIN_DIR, beside this executable \
            (swift build -c release --product mcumgr-sim in Benchmarks/), or in the package's .build/debug. \
            Python, bumble and smpclient come from the package's .venv (scripts/bootstrap.sh).
            """)

    @Option(help: "The mcumgr-sim executable (default: found like the tests find it, see above).")
    var simulator: String?

    @Option(help: "Image payload size in KiB.")
    var size = 220

    @Option(parsing: .upToNextOption, help: "Pipeline depths for our host.")
    var depths: [Int] = [1, 3]

    @Flag(help: "Skip smpclient's bumble transport.")
    var noSmpclient = false

    func run() async throws {
        if let simulator {
            let url = URL(fileURLWithPath: simulator)
            guard url.lastPathComponent == "mcumgr-sim", FileManager.default.isExecutableFile(atPath: simulator) else {
                throw ValidationError("--simulator must name an mcumgr-sim executable, not '\(simulator)'")
            }
            // BuiltProducts looks there first.
            setenv("MCUMGR_BIN_DIR", url.deletingLastPathComponent().path, 1)
        }
        try BuiltProducts.requirePeers(["python"])
        let rig = try await VirtualLink.start()
        defer { rig.stop() }
        let image = try makeImage()

        print("Upload of \(image.bytes.count) bytes through bumble's virtual link (27-byte ACL buffers, ATT MTU 498)")
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let spec = ConnectionSpec.ble(BLEConnectionParameters(peer: .name("smp-sim"), controller: .tcp(host: rig.address, port: rig.hostPort)))
        for depth in depths {
            let connection = try await ConnectionFactory.standard.connect(
                spec, options: ConnectionOptions(clientConfiguration: SMPClient.Configuration(timeout: .seconds(5), retries: 3), logger: logger))
            _ = try await ImageManager(client: connection.client).erase(slot: 1)
            let start = ContinuousClock.now
            try await ImageManager(client: connection.client).upload(data: image.bytes, configuration: UploadConfiguration(pipelineDepth: depth))
            let duration = ContinuousClock.now - start
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            await connection.close()
            print(String(format: "  swift-mcumgr over HCI, depth %d: %8.1f KiB/s (%.2f s)", depth, Double(image.bytes.count) / seconds / 1024, seconds))
        }
        guard !noSmpclient else { return }
        let directory = try Subprocess.temporaryDirectory("hci-bench")
        defer { try? FileManager.default.removeItem(at: directory) }
        let imagePath = directory.appendingPathComponent("image.bin")
        try Data(image.bytes).write(to: imagePath)
        let smpclient = try await Subprocess.run(
            BuiltProducts.venvTool("python"), ["-c", Self.smpclientScript, "tcp-client:\(rig.address):\(rig.hostPort)", "F0:F1:F2:F3:F4:F5", imagePath.path],
            timeout: .seconds(600))
        if smpclient.status == 0, let rate = smpclient.stdout.split(separator: "\n").last.flatMap({ Double($0) }) {
            print(String(format: "  smpclient's bumble transport:      %8.1f KiB/s (stop-and-wait)", rate / 1024))
        } else {
            print("  smpclient's bumble transport: failed\n\(smpclient)")
        }
    }

    /// smpclient's bumble transport: erase slot 1, upload, print bytes/s.
    static let smpclientScript = """
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

    private func makeImage() throws -> McuBootImage {
        var random = SeededRandom(seed: 1)
        var builder = McuBootImageBuilder(payload: random.bytes(size * 1024), version: McuBootVersion(string: "1.2.3")!)
        builder.headerSize = 0x200
        return try builder.buildImage()
    }
}

/// bumble's two virtual controllers on one virtual link, the SMP peripheral of the interop tests
/// (Tests/InteropTests/Peers/bumble_smp_peripheral.py) on the first, `mcumgr-sim` behind it over
/// UDP, and the second controller (on `hostPort`) for the host being measured. Every child holds
/// a lifeline on its standard input, so none outlives this process.
struct VirtualLink {
    let address: String
    let hostPort: Int
    let simulator: SimulatorProcess
    let controllers: ChildProcess
    let peripheral: ChildProcess

    /// Starts everything and waits until the peripheral advertises.
    static func start() async throws -> VirtualLink {
        let address = "127.78.\(UInt8.random(in: 1...254)).\(UInt8.random(in: 1...254))"
        let ports = [Int.random(in: 20_000...29_999), Int.random(in: 30_000...39_999)]
        let directory = try Subprocess.temporaryDirectory("hci-bench-link")
        let python = BuiltProducts.venvTool("python")
        // bumble.apps.controllers as is, plus a thread that exits when the lifeline closes.
        let launcher = """
            import os, runpy, sys, threading
            threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
            sys.argv = ['bumble-controllers'] + sys.argv[1:]
            runpy.run_module('bumble.apps.controllers', run_name='__main__')
            """
        let controllers = try Subprocess.launch(
            python, ["-c", launcher, "tcp-server:\(address):\(ports[0])", "tcp-server:\(address):\(ports[1])"],
            stdout: directory.appendingPathComponent("controllers.out"), stderr: nil, lifeline: true)
        let simulator: SimulatorProcess
        do {
            simulator = try await SimulatorProcess.start(["--boot-time", "200"], endpoint: "\(address):1337")
        } catch {
            controllers.terminate()
            throw error
        }
        let out = directory.appendingPathComponent("peripheral.out")
        let script = BuiltProducts.packageRoot.path + "/Tests/InteropTests/Peers/bumble_smp_peripheral.py"
        let peripheral = try Subprocess.launch(
            python, [script, "--transport", "tcp-client:\(address):\(ports[0])", "--sim", "\(address):1337"],
            stdout: out, stderr: directory.appendingPathComponent("peripheral.err"), lifeline: true)
        let link = VirtualLink(address: address, hostPort: ports[1], simulator: simulator, controllers: controllers, peripheral: peripheral)
        let clock = SMPClock.continuous
        let deadline = clock.now + .seconds(30)
        while clock.now < deadline, peripheral.isRunning, controllers.isRunning {
            let printed = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if printed.split(separator: "\n").contains("ready") { return link }
            try await clock.sleep(for: .milliseconds(20))
        }
        link.stop()
        let log = (try? String(contentsOf: directory.appendingPathComponent("peripheral.err"), encoding: .utf8)) ?? ""
        throw ProcessError("bumble's controllers and peripheral did not start:\n\(log)")
    }

    /// Stops the peripheral, the controllers and the simulator.
    func stop() {
        peripheral.terminate()
        controllers.terminate()
        simulator.stop()
    }
}
