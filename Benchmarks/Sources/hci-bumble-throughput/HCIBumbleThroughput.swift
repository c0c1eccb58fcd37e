import ArgumentParser
import Foundation
import Logging
import McuBoot
import McuMgr
import McuMgrConnection
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
        let rig = try await Self.startLink()
        do {
            try await measure(on: rig)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    /// Our host at each depth, then smpclient's bumble transport, through `rig`.
    private func measure(on rig: BumbleLink) async throws {
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

    /// bumble's virtual link with the SMP peripheral and `mcumgr-sim` behind it, once it advertises.
    static func startLink() async throws -> BumbleLink {
        let link = try await BumbleLink.launch(addressPrefix: "127.78", simulatorArguments: ["--boot-time", "200"])
        if await link.waitFor("ready") { return link }
        await link.stop()
        throw ProcessError("bumble's controllers and peripheral did not start:\n\(link.errorLog)")
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
