import GATT
import McuBoot
import McuMgr
import SMP
import SMPBLE
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Synchronization
import Testing

@Suite("SMP over GATT against the simulator's peripheral (socketpair)")
struct BLETransportTests {
    @Test("echo; the link unit is MTU − 3, and the packet limit grows with the device's reassembly buffer")
    func echoAndSizes() async throws {
        let (_, peripheral, transport) = try await BLEFixtures.connected()
        let client = BLEFixtures.client(transport)
        try await guarded(cleanup: { await client.close(); await peripheral.close() }) { () async throws in
            #expect(try await DefaultManager(client: client).echo("hello over GATT") == "hello over GATT")
            #expect(transport.mtu == 498)
            #expect(await transport.linkUnit == 495)
            #expect(await transport.maximumPacketSize == 495)
            #expect(await peripheral.currentMTU() == 498)
            #expect(await peripheral.notificationsEnabled())
            transport.reassemblyBufferSize = 2048
            #expect(await transport.maximumPacketSize == 2048)
            // A request larger than one write now goes out as several and is reassembled by the device.
            let long = String(repeating: "0123456789", count: 150)
            #expect(try await DefaultManager(client: client).echo(long) == long)
        }
    }

    @Test("every manager over BLE: OS, image, stats, settings, log, file system, shell, enumeration, basic")
    func managersSmoke() async throws {
        let (device, peripheral, transport) = try await BLEFixtures.connected(reassemblyBufferSize: 2048)
        let client = BLEFixtures.client(transport)
        try await guarded(cleanup: { await client.close(); await peripheral.close() }) { () async throws in
            let os = DefaultManager(client: client)
            #expect(try await os.echo("ble") == "ble")
            #expect(try await os.parameters() == McuMgrParameters(bufferSize: 2048, bufferCount: 4))
            #expect(try await !os.taskStats().isEmpty)
            #expect(try await os.bootloaderInfo().name == "MCUboot")

            let slots = try await ImageManager(client: client).list()
            #expect(slots.first?.hash == (try BLEFixtures.runningImage().hash))
            #expect(slots.first?.version == "1.0.0")

            let stats = StatsManager(client: client)
            let groups = try await stats.list()
            #expect(!groups.isEmpty)
            #expect(try await !stats.read(group: groups[0]).fields.isEmpty)

            let config = ConfigManager(client: client)
            try await config.write(name: "ble/test", value: Array("value".utf8))
            #expect(try await config.read(name: "ble/test").value == Array("value".utf8))

            #expect(try await !LogManager(client: client).show().logs.isEmpty)

            let fs = FileSystemManager(client: client)
            let file = BLEFixtures.payload(count: 6000, seed: 3)
            try await fs.upload(name: "/lfs1/ble.bin", data: file)
            #expect(await device.file(at: "/lfs1/ble.bin") == file)
            #expect(try await fs.status(name: "/lfs1/ble.bin") == file.count)
            #expect(try await fs.download(name: "/lfs1/ble.bin") == file)

            #expect(try await ShellManager(client: client).execute(["echo", "over", "ble"]).output == "over ble\n")
            #expect(try await EnumerationManager(client: client).count() > 5)
            try await BasicManager(client: client).eraseStorage()
            #expect(await device.file(at: "/lfs1/ble.bin") == nil)
        }
    }

    @Test("a 2 KiB response in a hundred 20-byte notifications is reassembled (MTU 23)")
    func longResponseInManyNotifications() async throws {
        let (_, peripheral, transport) = try await BLEFixtures.connected(
            device: BLEFixtures.configuration { $0.bufferSize = 4096 }, gatt: GATTPeripheralConfiguration(maximumMTU: 23), reassemblyBufferSize: 4096)
        let client = BLEFixtures.client(transport)
        try await guarded(cleanup: { await client.close(); await peripheral.close() }) { () async throws in
            #expect(transport.mtu == 23)
            #expect(await transport.linkUnit == 20)
            let text = String((0..<2100).map { Character(UnicodeScalar(UInt8(0x41 + $0 % 26))) })
            #expect(try await DefaultManager(client: client).echo(text) == text)
        }
    }

    @Test("after a disconnect, connect() makes a new bearer and the new MTU is the link unit")
    func reconnectWithAnotherMTU() async throws {
        let device = SimulatedDevice(configuration: BLEFixtures.configuration(), logger: BLEFixtures.quietLogger)
        let wide = await SimulatorGATTPeripheral.start(device: device, configuration: GATTPeripheralConfiguration(maximumMTU: 498), logger: BLEFixtures.quietLogger)
        let narrow = await SimulatorGATTPeripheral.start(device: device, configuration: GATTPeripheralConfiguration(maximumMTU: 185), logger: BLEFixtures.quietLogger)
        let connections = ConnectionCounter()
        let connector = BLEConnector("two peripherals") { () async throws(BLEError) -> any ATTBearer in
            let peripheral = await connections.next() == 0 ? wide : narrow
            do { return try await peripheral.connectSocketPair() } catch { throw .hostDown("\(error)") }
        }
        let transport = BLETransport(connector: connector, logger: BLEFixtures.quietLogger)
        let watched = LinkWatchingTransport(transport)
        let client = BLEFixtures.client(watched)
        try await guarded(cleanup: { await client.close(); await wide.close(); await narrow.close() }) { () async throws in
            try await transport.connect()
            #expect(try await DefaultManager(client: client).echo("first") == "first")
            #expect(await transport.linkUnit == 495)

            await wide.disconnect()
            // connect() is a no-op while the transport still thinks it is up: wait until it reports the
            // disconnect (however long a loaded machine takes to deliver the socket's end), then one
            // connect() must make a new bearer.
            var changes = watched.linkChanges.makeAsyncIterator()
            var disconnected = false
            while !disconnected, let change = await changes.next() {
                if case .disconnected = change { disconnected = true }
            }
            #expect(disconnected)
            try await transport.connect()
            #expect(transport.mtu == 185)
            #expect(await transport.linkUnit == 182)
            #expect(await transport.maximumPacketSize == 182)
            #expect(try await DefaultManager(client: client).echo("second") == "second")
            #expect(await connections.count == 2)
        }
    }

    @Test("a write that finds the link ended: the next connect() opens a new bearer at once, before the old bearer's close event")
    func reconnectAfterWriteOnEndedLink() async throws {
        let device = SimulatedDevice(configuration: BLEFixtures.configuration(), logger: BLEFixtures.quietLogger)
        let peripheral = await SimulatorGATTPeripheral.start(device: device, configuration: GATTPeripheralConfiguration(), logger: BLEFixtures.quietLogger)
        let bearers = Mutex<[SeverableBearer]>([])
        let connector = BLEConnector("severable links") { () async throws(BLEError) -> any ATTBearer in
            let inner: FileDescriptorBearer
            do { inner = try await peripheral.connectSocketPair() } catch { throw .hostDown("\(error)") }
            let bearer = SeverableBearer(inner)
            bearers.withLock { $0.append(bearer) }
            return bearer
        }
        let transport = BLETransport(connector: connector, logger: BLEFixtures.quietLogger)
        let client = BLEFixtures.client(transport)
        try await guarded(cleanup: { await client.close(); await peripheral.close() }) { () async throws in
            try await transport.connect()
            #expect(try await DefaultManager(client: client).echo("first") == "first")

            bearers.withLock { $0[0] }.sever(reason: "connection 0x0001 ended")
            // An echo request ("hello"), smp-reference §8.1.
            let echo = HexText.bytes("0a 00 00 09 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f")
            await #expect(throws: SMPTransportError.disconnected(reason: "connection 0x0001 ended")) {
                try await transport.send(echo)
            }
            // The old bearer's inbound is still open: connect() must not take the link for up.
            try await transport.connect()
            #expect(bearers.withLock { $0.count } == 2)
            #expect(try await DefaultManager(client: client).echo("second") == "second")
        }
    }

    @Test("the peripheral's database: Generic Access with the device name, and the SMP service with its CCCD")
    func peripheralDatabase() async throws {
        let device = SimulatedDevice(configuration: BLEFixtures.configuration(), logger: BLEFixtures.quietLogger)
        let peripheral = await SimulatorGATTPeripheral.start(device: device, logger: BLEFixtures.quietLogger)
        let client = GATTClient(bearer: try await peripheral.connectSocketPair(), logger: BLEFixtures.quietLogger)
        try await guarded(cleanup: { await client.close(); await peripheral.close() }) { () async throws in
            #expect(try await client.exchangeMTU() == 498)
            let services = try await client.discoverPrimaryServices()
            #expect(services == [
                GATTService(uuid: .genericAccess, startHandle: 0x0001, endHandle: 0x0003),
                GATTService(uuid: BLETransport.serviceUUID, startHandle: 0x0010, endHandle: 0x0013),
            ])
            let name = try #require(try await client.discoverCharacteristics(of: services[0]).first { $0.uuid == .deviceName })
            #expect(try await client.read(handle: name.valueHandle) == Array(device.configuration.nodeName.utf8))
            let smp = try #require(try await client.discoverCharacteristics(of: services[1]).first)
            #expect(smp.properties == [.writeWithoutResponse, .notify])
            #expect(try await client.discoverDescriptors(of: smp) == [GATTDescriptor(uuid: .clientCharacteristicConfiguration, handle: 0x0013)])
            // The SMP value is not readable; the CCCD reads back what was written.
            await #expect(throws: GATTError.att(ATTErrorResponse(request: .readRequest, handle: 0x0012, code: .readNotPermitted))) {
                try await client.read(handle: 0x0012)
            }
            try await client.setNotifications(.notifications, for: smp)
            #expect(try await client.read(handle: 0x0013) == [0x01, 0x00])
        }
    }

    @Test("a device that takes writes only on an encrypted link refuses the CCCD write: connect() fails in one line that says it needs pairing")
    func pairingRequired() async throws {
        let device = SimulatedDevice(configuration: BLEFixtures.configuration(), logger: BLEFixtures.quietLogger)
        let peripheral = await SimulatorGATTPeripheral.start(
            device: device, configuration: GATTPeripheralConfiguration(requiresEncryption: true), logger: BLEFixtures.quietLogger)
        let transport = BLETransport(connector: BLEFixtures.connector(peripheral), logger: BLEFixtures.quietLogger)
        try await guarded(cleanup: { await transport.close(); await peripheral.close() }) { () async throws in
            await #expect(
                throws: SMPTransportError.unreachable(
                    "simulated device: the device requires pairing (ATT_WRITE_REQ on handle 0x0013 failed: Insufficient Authentication (0x05)): "
                        + "pair it first (`bluetoothctl pair ADDRESS`), or let the kernel pair as it connects "
                        + "(--ble-security medium or high; security= in a connection string)")
            ) { try await transport.connect() }
            // Discovery was open to it; the refusal came at the subscription, and nothing reached the device.
            #expect(await !peripheral.notificationsEnabled())
            #expect(await device.requestLog.isEmpty)
        }
    }

    @Test("a device that is rebooting refuses the connection with a clear error; close() finishes the events")
    func refusedWhileRebooting() async throws {
        let (device, peripheral, transport) = try await BLEFixtures.connected()
        try await guarded(cleanup: { await transport.close(); await peripheral.close() }) { () async throws in
            await device.powerCycle()
            var sawDisconnect = false
            for await event in transport.events {
                if case .disconnected = event {
                    sawDisconnect = true
                    break
                }
            }
            #expect(sawDisconnect)
            do {
                try await transport.connect()
                // The device may already be back: then the link is simply up again.
                #expect(await !device.isRebooting)
            } catch {
                #expect("\(error)".contains("not advertising"))
            }
            await transport.close()
            await #expect(throws: SMPTransportError.closed) { try await transport.connect() }
            await #expect(throws: SMPTransportError.closed) { try await transport.send([0, 0, 0, 0, 0, 0, 0, 0]) }
        }
    }
}

/// Counts connection attempts.
actor ConnectionCounter {
    private(set) var count = 0
    func next() -> Int {
        defer { count += 1 }
        return count
    }
}
