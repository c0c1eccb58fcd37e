import BLEHost
import Foundation
import GATT
import McuBoot
import McuMgr
import McuMgrConnection
import SMP
import SMPBLE
import SMPTestSupport
import Testing

/// `mcumgr-sim --hci tcp:…`: the simulated device as a peripheral through our LE host on one of
/// bumble's virtual controllers, reached by centrals on the other: our own host (the connection
/// library's `--hci` connector) and smpclient's bumble transport (an independent Bluetooth stack
/// and SMP client). One test at a time: each starts the controllers and a simulator.
@Suite("mcumgr-sim as a BLE peripheral on bumble's controllers", .serialized)
struct SimulatorPeripheralTests {
    static let address = "C0:5A:17:00:00:02"
    // Short enough to fit whole in the advertisement beside the service UUID: bumble's controller never
    // sends the scan response data a host sets (see interop-notes), where a longer name would be whole.
    static let name = "sim-ble"

    /// Starts the controllers and `mcumgr-sim --hci` on the first, runs `body`, stops both.
    static func withPeripheral<T>(
        _ simulatorArguments: [String] = [], _ body: (BumbleControllers, SimulatorProcess) async throws -> T
    ) async throws -> T {
        try BuiltProducts.requirePeers(["python"])
        let controllers = try BumbleControllers.launch(addressPrefix: "127.79")
        guard await controllers.waitUntilListening() else {
            await controllers.stop()
            throw InteropError("bumble's controllers did not start: \((try? String(contentsOf: controllers.errorLog, encoding: .utf8)) ?? "")")
        }
        let simulator: SimulatorProcess
        do {
            simulator = try await SimulatorProcess.startPeripheral(
                controller: controllers.first, ["--ble-name", name, "--ble-address", address, "--boot-time", "200", "--reset-delay", "50"] + simulatorArguments)
        } catch {
            await controllers.stop()
            throw error
        }
        do {
            let result = try await body(controllers, simulator)
            await simulator.stopAndWait()
            await controllers.stop()
            return result
        } catch {
            await simulator.stopAndWait()
            await controllers.stop()
            throw error
        }
    }

    /// A session through the connection library's `.hci` connector on the second controller.
    static func connect(_ controllers: BumbleControllers, peer: BLEPeer = .name(name), timeout: Duration = .seconds(5)) async throws -> DeviceConnection {
        let spec = ConnectionSpec.ble(BLEConnectionParameters(peer: peer, controller: .tcp(host: controllers.address, port: controllers.secondPort)))
        let options = ConnectionOptions(clientConfiguration: SMPClient.Configuration(timeout: timeout, retries: 3), logger: BumbleRig.quiet)
        return try await ConnectionFactory.standard.connect(spec, options: options)
    }

    @Test("it advertises what a central filters on: connectable, the SMP service UUID, its name, from the address given")
    func advertisement() async throws {
        try await Self.withPeripheral { controllers, simulator in
            #expect(simulator.endpoint == .ble(address: Self.address))
            let transport = try await HCITransports.tcp(host: controllers.address, port: controllers.secondPort, logger: BumbleRig.quiet)
            let host = LEHost(transport: transport, logger: BumbleRig.quiet)
            try await host.start()
            let found = try await host.find(service: BLETransport.serviceUUID, within: .seconds(20)) { $0.name == Self.name }
            await host.close()
            let device = try #require(found)
            #expect(device.address == LEAddress(Self.address, kind: .random))
            #expect(device.connectable)
            #expect(device.services == [BLETransport.serviceUUID])
        }
    }

    @Test("our central finds it by name: echo, image list, a 220 KiB test-and-confirm upgrade whose hash the slot then reports")
    func upgrade() async throws {
        let image = try await TestImage.make(version: "2.1.0", size: 220 * 1024, seed: 21)
        try await Self.withPeripheral { controllers, simulator in
            let connection = try await Self.connect(controllers)
            #expect(try await DefaultManager(client: connection.client).echo("to the peripheral") == "to the peripheral")
            let report = try await FirmwareUpgradeManager(client: connection.client, logger: BumbleRig.quiet).upgrade(
                images: [FirmwareUpgradeImage(image: try McuBootImage(bytes: image.bytes))],
                configuration: FirmwareUpgradeConfiguration(mode: .testAndConfirm, pipelineDepth: 3, resetTimeout: .seconds(60), chunkTimeout: .seconds(5)))
            #expect(report.resets == 1)
            let primary = try #require(try await ImageManager(client: connection.client).list().first { $0.image == 0 && $0.slot == 0 })
            #expect(primary.hash == image.hash)
            #expect(primary.active && primary.confirmed)
            await connection.close()
            // The reset dropped the link; the peripheral advertised again once the device was back.
            #expect(simulator.log.split(separator: "\n").filter { $0.contains("not advertising until the device is back") }.count == 1)
        }
    }

    @Test(
        "the device drops the link in the middle of an upload (--disconnect-at), or powers its controller off and on with it (--ble-power-cycle): it advertises again and the upload resumes",
        arguments: [false, true])
    func uploadResumes(powerCycle: Bool) async throws {
        let image = try await TestImage.make(version: "2.2.0", size: 220 * 1024, seed: 22)
        let drop = ["--disconnect-at", "100000", "--reconnect-delay", "500"] + (powerCycle ? ["--ble-power-cycle"] : [])
        try await Self.withPeripheral(drop) { controllers, simulator in
            let connection = try await Self.connect(controllers, peer: .address(Self.address), timeout: .seconds(3))
            let report = try await FirmwareUpgradeManager(client: connection.client, logger: BumbleRig.quiet).upgrade(
                images: [FirmwareUpgradeImage(image: try McuBootImage(bytes: image.bytes))],
                configuration: FirmwareUpgradeConfiguration(mode: .testAndConfirm, pipelineDepth: 2, resetTimeout: .seconds(60), chunkTimeout: .seconds(3)))
            #expect(report.resets == 1)
            let primary = try #require(try await ImageManager(client: connection.client).list().first { $0.image == 0 && $0.slot == 0 })
            #expect(primary.hash == image.hash && primary.active && primary.confirmed)
            await connection.close()
            // Resumed, not restarted: the upload requests carried about one image, not one and the part before the drop.
            let uploaded = simulator.requestLog.filter { $0.contains("write group=1 cmd=1 ") }.compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("len=") }.flatMap { Int($0.dropFirst(4)) }
            }.reduce(0, +)
            #expect(uploaded > image.bytes.count && uploaded < image.bytes.count + 50_000, "\(uploaded) bytes in upload requests")
            #expect(simulator.log.split(separator: "\n").filter { $0.contains("central") && $0.hasSuffix("connected") }.count >= 3)
            // The fault's drop and the reset's each power the controller off and on, only with the flag.
            let lines = simulator.log.split(separator: "\n")
            #expect(lines.filter { $0.contains("controller powered off until the device is back") }.count == (powerCycle ? 2 : 0), "\(simulator.log)")
            #expect(lines.filter { $0.contains("resetting the controller") }.count == (powerCycle ? 2 : 0))
        }
    }

    @Test("--ble-interval: 5 s into the connection the peripheral asks our central for 15-30 ms, which accepts; SMP goes on")
    func parameterRequest() async throws {
        try await Self.withPeripheral(["--ble-interval", "15-30"]) { controllers, simulator in
            let connection = try await Self.connect(controllers)
            #expect(try await DefaultManager(client: connection.client).echo("before") == "before")
            let clock = ContinuousClock()
            let deadline = clock.now + TestTimeScale.scaled(.seconds(20))
            while !simulator.log.contains("asked of"), clock.now < deadline { try await clock.sleep(for: .milliseconds(100)) }
            #expect(simulator.log.contains("connection parameters 12-24 (1.25 ms) asked of"))
            #expect(simulator.log.contains(": accepted"), "\(simulator.log)")
            #expect(try await DefaultManager(client: connection.client).echo("after") == "after")
            await connection.close()
        }
    }

    @Test("smpclient over bumble (an independent central and SMP client) echoes and reads the parameters and the image states")
    func independentCentral() async throws {
        try await Self.withPeripheral { controllers, _ in
            let output = try await Subprocess.python(
                Self.smpclientOverBumble, arguments: ["tcp-client:\(controllers.address):\(controllers.secondPort)", Self.name], timeout: .seconds(120))
            let result = try output.json()
            #expect(result["echo"] as? String == "over bumble")
            #expect(result["params"] as? [Int] == [2048, 4])
            let images = try #require(result["images"] as? [[Any]])
            #expect(images.contains { ($0[0] as? Int) == 0 && ($0[1] as? Int) == 0 && ($0[2] as? Bool) == true && ($0[3] as? Bool) == true })
        }
    }

    /// smpclient's bumble transport: finds the device by name, connects, and asks three things.
    /// Arguments: bumble HCI transport, device name.
    static let smpclientOverBumble = #"""
        import asyncio, json, sys
        from smpclient import SMPClient
        from smpclient.transport.bumble import SMPBumbleTransport
        from smpclient.requests.os_management import EchoWrite, MCUMgrParametersRead
        from smpclient.requests.image_management import ImageStatesRead

        async def main(hci, name):
            out = {}
            async with SMPClient(SMPBumbleTransport(hci=hci, preferred_mtu=498), name, timeout_s=20) as c:
                out["echo"] = (await c.request(EchoWrite(d="over bumble"))).r
                r = await c.request(MCUMgrParametersRead())
                out["params"] = [r.buf_size, r.buf_count]
                r = await c.request(ImageStatesRead())
                out["images"] = [[s.image, s.slot, s.active, s.confirmed] for s in r.images]
            print(json.dumps(out))

        asyncio.run(main(sys.argv[1], sys.argv[2]))
        """#
}
