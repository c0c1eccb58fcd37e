import BLEHost
import Foundation
import SMPTestSupport
import GATT
import Logging
import McuBoot
import McuMgr
import McuMgrConnection
import McuMgrTools
import SMP
import SMPBLE
import Testing

/// Our LE host on one of bumble's virtual controllers, against a bumble GATT peripheral on the
/// other (an independent Bluetooth stack) that bridges SMP to `mcumgr-sim`. One test at a time:
/// each starts three processes, and the machine's two cores serve the whole parallel suite.
@Suite("LE host over HCI against bumble", .serialized)
struct BumbleHostTests {
    static let smpService = BluetoothUUID(string: "8D53DC1D-1DB7-4CD3-868B-8A527460AA84")!

    /// A session through the connection library's `.hci` connector, as `mcumgr --hci … --ble NAME` makes it.
    static func connect(_ rig: BumbleRig, peer: BLEPeer? = nil, timeout: Duration = .seconds(5)) async throws -> DeviceConnection {
        let logger = BumbleRig.quiet
        let spec = ConnectionSpec.ble(BLEConnectionParameters(peer: peer ?? .name(rig.peripheralName), controller: rig.controller))
        let options = ConnectionOptions(clientConfiguration: SMPClient.Configuration(timeout: timeout, retries: 3), logger: logger)
        return try await ConnectionFactory.standard.connect(spec, options: options)
    }

    @Test("a scan finds the peripheral by the SMP service UUID, with its name and address")
    func scan() async throws {
        try await withBumbleRig { rig in
            let host = try await rig.startHost()
            let name = rig.peripheralName
            let found = try await host.scan(for: .seconds(20), service: Self.smpService) { results in results.contains { $0.name == name } }
            let device = try #require(found.first { $0.name == name })
            #expect(device.address == LEAddress(rig.peripheralAddress, kind: .random))
            #expect(device.services.contains(Self.smpService))
            #expect(device.connectable)
            // A service nobody advertises finds nothing.
            let other = try await host.scan(for: .milliseconds(500), service: BluetoothUUID(string: "0000FEED-0000-1000-8000-00805F9B34FB"))
            #expect(other.isEmpty)
            await host.close()
        }
    }

    @Test("connect, MTU exchange, discovery, the GAP name (0x2A00) read over GATT, disconnect with a reason")
    func connectAndDiscover() async throws {
        try await withBumbleRig { rig in
            let host = try await rig.startHost()
            let connection = try await host.connect(to: try #require(LEAddress(rig.peripheralAddress, kind: .random)))
            #expect(await rig.waitFor("connected"))
            let client = GATTClient(bearer: connection.attBearer, logger: BumbleRig.quiet)
            let mtu = try await client.exchangeMTU()
            #expect(mtu == 498)
            #expect(await rig.waitFor("mtu 498"))
            let gap = try #require(try await client.discoverPrimaryServices(uuid: BluetoothUUID(0x1800)).first)
            let nameCharacteristic = try #require(try await client.discoverCharacteristics(of: gap).first { $0.uuid == BluetoothUUID(0x2A00) })
            let name = try await client.read(handle: nameCharacteristic.valueHandle)
            #expect(String(decoding: name, as: UTF8.self) == rig.peripheralName)
            let smp = try #require(try await client.discoverPrimaryServices(uuid: Self.smpService).first)
            let characteristics = try await client.discoverCharacteristics(of: smp)
            #expect(characteristics.contains { $0.uuid == BLETransport.characteristicUUID && $0.properties.contains(.notify) })
            await connection.disconnect(reason: .remoteUserTerminated)
            #expect(connection.isEnded)
            // bumble reports the reason we gave (0x13 remote user terminated).
            #expect(await rig.waitFor("disconnected"))
            #expect(rig.lines(startingWith: "disconnected").first?.contains("19") == true)
            await client.close()
            await host.close()
        }
    }

    @Test("echo, image list and an FS download (file put there by smpmgr over UDP) through SMP over GATT over HCI")
    func smpCommands() async throws {
        try await withBumbleRig { rig in
            let contents = (0..<30_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let local = try Interop.temporaryDirectory("fs").appendingPathComponent("data.bin")
            try Data(contents).write(to: local)
            let put = try await rig.simulator.smpmgr("file", "upload", local.path, "/lfs1/data.bin")
            #expect(put.status == 0, "\(put.stderr)")

            let connection = try await Self.connect(rig)
            let client = connection.client
            #expect(try await DefaultManager(client: client).echo("hello over HCI") == "hello over HCI")
            let slots = try await ImageManager(client: client).list()
            #expect(slots.contains { $0.image == 0 && $0.slot == 0 && $0.active && $0.confirmed })
            let downloaded = try await FileSystemManager(client: client).download(name: "/lfs1/data.bin")
            #expect(downloaded == contents)
            await connection.close()
            #expect(await rig.waitFor("disconnected"))
        }
    }

    @Test("test-and-confirm upgrade of an imgtool image ≥ 200 KiB, pipeline depth 1 and 3: the slot hash equals the image's", arguments: [1, 3])
    func upgrade(depth: Int) async throws {
        let image = try await TestImage.make(version: "1.2.3", size: 220 * 1024, seed: UInt64(depth))
        #expect(image.bytes.count >= 200 * 1024)
        try await withBumbleRig { rig in
            let connection = try await Self.connect(rig)
            let report = try await FirmwareUpgradeManager(client: connection.client, logger: BumbleRig.quiet).upgrade(
                images: [FirmwareUpgradeImage(image: try McuBootImage(bytes: image.bytes))],
                configuration: FirmwareUpgradeConfiguration(mode: .testAndConfirm, pipelineDepth: depth, resetTimeout: .seconds(60), chunkTimeout: .seconds(5)))
            #expect(report.resets == 1)
            let primary = try #require(try await ImageManager(client: connection.client).list().first { $0.image == 0 && $0.slot == 0 })
            #expect(primary.hash == image.hash)
            #expect(primary.version == "1.2.3")
            #expect(primary.active && primary.confirmed)
            await connection.close()
        }
    }

    @Test("the peripheral drops the link in the middle of an upload: the upload resumes after reconnecting, the slot boots byte-identical")
    func uploadResumesAfterLinkDrop() async throws {
        let image = try await TestImage.make(version: "2.0.0", size: 220 * 1024, seed: 9)
        let dropAfter = 100_000
        try await withBumbleRig(peripheral: ["--drop-after-bytes", String(dropAfter)]) { rig in
            let connection = try await Self.connect(rig, timeout: .seconds(3))
            let report = try await FirmwareUpgradeManager(client: connection.client, logger: BumbleRig.quiet).upgrade(
                images: [FirmwareUpgradeImage(image: try McuBootImage(bytes: image.bytes))],
                configuration: FirmwareUpgradeConfiguration(mode: .testAndConfirm, pipelineDepth: 2, resetTimeout: .seconds(60), chunkTimeout: .seconds(3)))
            #expect(report.resets == 1)
            #expect(rig.lines(startingWith: "dropped-link").count == 1)
            #expect(rig.lines(startingWith: "connected").count >= 2)
            // MCUboot in the simulator boots the slot only when its SHA-256 matches the bytes.
            let primary = try #require(try await ImageManager(client: connection.client).list().first { $0.image == 0 && $0.slot == 0 })
            #expect(primary.hash == image.hash && primary.active && primary.confirmed)
            await connection.close()
            // Resumed, not restarted: everything written over both links is about one image, not one image plus the part before the drop.
            #expect(await rig.waitFor("disconnected", count: 2))
            let written = rig.lines(startingWith: "disconnected").last.flatMap { line in
                line.split(separator: " ").dropLast().last.flatMap { Int($0) }
            }
            let total = try #require(written)
            #expect(total > image.bytes.count)
            #expect(total < image.bytes.count + dropAfter / 2)
        }
    }

    @Test("a connection parameter update request over L2CAP signalling is answered (accepted)")
    func parameterUpdate() async throws {
        try await withBumbleRig(peripheral: ["--param-update"]) { rig in
            let host = try await rig.startHost()
            let connection = try await host.connect(to: try #require(LEAddress(rig.peripheralAddress, kind: .random)))
            #expect(await rig.waitFor("param-update", timeout: .seconds(20)))
            #expect(rig.lines(startingWith: "param-update").first == "param-update accepted")
            // The link still works after the update.
            let client = GATTClient(bearer: connection.attBearer, logger: BumbleRig.quiet)
            #expect(try await client.exchangeMTU() == 498)
            await client.close()
            await host.close()
        }
    }

    @Test("a device that requires pairing fails to connect with a message that says so")
    func pairingRequired() async throws {
        try await withBumbleRig(peripheral: ["--require-authentication"]) { rig in
            do {
                let connection = try await Self.connect(rig)
                await connection.close()
                Issue.record("connected to a device that requires pairing")
            } catch let error as ConnectionError {
                let failure = CommandFailure(error)
                #expect(failure.status == .transport)
                #expect(failure.message.contains("does not pair"))
                #expect(failure.message.contains("Insufficient Authentication") || failure.message.contains("insufficient authentication"))
            }
        }
    }

    @Test("the UART transport: our host on a bumble controller served on a pseudo-terminal scans, connects and echoes")
    func serialController() async throws {
        try await withBumbleRig(hostOverPTY: true) { rig in
            let connection = try await Self.connect(rig, peer: .scan)
            #expect(try await DefaultManager(client: connection.client).echo("over a UART") == "over a UART")
            await connection.close()
        }
    }
}
