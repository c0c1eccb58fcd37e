import Logging
import McuMgr
import McuMgrConnection
import SMP
import SMPBLE
import SMPSerial
import SMPTestSupport
import SMPUDP
import Testing

/// What a library user writes to reach a device over each kind of link: a spec (our options, Go
/// mcumgr's connection strings, or the enum), `ConnectionFactory.standard`, a session. The devices
/// are `mcumgr-sim` processes (behind bumble's controllers for HCI), so time is the wall clock's
/// and limits are generous.
@Suite("Opening connections")
struct OpeningConnectionsTests {
    /// Session options for these tests: a few retries, no logging.
    static let options: ConnectionOptions = {
        var logger = Logger(label: "connection-tests")
        logger.logLevel = .critical
        return ConnectionOptions(clientConfiguration: SMPClient.Configuration(timeout: .seconds(5), retries: 3), logger: logger)
    }()

    /// Echoes and reads the image table over `connection`, closes it, and returns both answers.
    static func exercise(_ connection: DeviceConnection) async throws -> (echo: String, slots: [ImageSlot]) {
        do {
            let echo = try await DefaultManager(client: connection.client).echo("over \(connection.spec.kind)")
            let slots = try await ImageManager(client: connection.client).list()
            await connection.close()
            return (echo, slots)
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Runs `body`, then `stop` (the simulator's or bumble's), whether `body` succeeds or throws.
    static func run(stopping stop: () async -> Void, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    @Test("UDP: --udp HOST:PORT to mcumgr-sim on a real socket")
    func udp() async throws {
        let simulator = try await SimulatorProcess.start()
        try await Self.run(stopping: { await simulator.stopAndWait() }) {
            let spec = try ConnectionSpec(udpOption: simulator.address)
            let connection = try await ConnectionFactory.standard.connect(spec, options: Self.options)
            #expect(connection.transport is UDPTransport)
            let (echo, slots) = try await Self.exercise(connection)
            #expect(echo == "over UDP")
            #expect(slots.contains { $0.image == 0 && $0.slot == 0 && $0.active && $0.version == "1.0.0" })
        }
    }

    @Test("serial: Go's serial connection string to mcumgr-sim on a pty, SMP console framing")
    func serial() async throws {
        let simulator = try await SimulatorProcess.startSerial(logsRequests: false)
        try await Self.run(stopping: { await simulator.stopAndWait() }) {
            let path = try #require(simulator.serialPath)
            let spec = try ConnectionSpec(type: "serial", connString: "dev=\(path),baud=115200,mtu=256")
            let connection = try await ConnectionFactory.standard.connect(spec, options: Self.options)
            #expect(connection.transport is SerialTransport)
            #expect(await connection.transport.maximumPacketSize == 256)
            let (echo, slots) = try await Self.exercise(connection)
            #expect(echo == "over serial")
            #expect(slots.contains { $0.image == 1 && $0.slot == 0 && $0.active && $0.version == "1.0.0" })
        }
    }

    @Test("BlueZ kernel socket: the attempt reaches the kernel, which has no Bluetooth here, and fails with an error that says so")
    func blueZSocket() async throws {
        for spec in [
            ConnectionSpec.ble(BLEConnectionParameters(peer: .address("AA:BB:CC:DD:EE:FF"), addressType: .random)),
            try ConnectionSpec(type: "ble", connString: "peer_id=AA:BB:CC:DD:EE:FF,addr_type=public,ctlr_name=hci0,security=high"),
            try ConnectionSpec(bleOption: "a board"),
        ] {
            #expect(spec.kind == .ble)
            let error = try await #require(throws: ConnectionError.self) { try await ConnectionFactory.standard.connect(spec, options: Self.options) }
            guard case .connectFailed(spec, .unreachable(let why)) = error else {
                Issue.record("expected the device to be unreachable, got \(error)")
                continue
            }
            // EAFNOSUPPORT from the kernel, as BLEError.bluetoothUnavailable words it.
            #expect(why.hasPrefix("Bluetooth is not available: this kernel has no Bluetooth support"), "\(why)")
            #expect(why.contains("address family not supported"), "\(why)")
        }
    }

    @Test("HCI: our LE host on one of bumble's virtual controllers, to the simulator's GATT peripheral on the other, found by name")
    func hci() async throws {
        try BuiltProducts.requirePeers(["python"])
        let link = try await BumbleLink.launch(addressPrefix: "127.78")
        try await Self.run(stopping: link.stop) {
            #expect(await link.waitFor("ready"), "bumble's peripheral did not advertise:\n\(link.errorLog)")
            let spec = try ConnectionSpec(type: "ble", connString: "peer_name=smp-sim,hci=tcp:\(link.address):\(link.hostPort)")
            #expect(spec.kind == .hci)
            let connection = try await ConnectionFactory.standard.connect(spec, options: Self.options)
            #expect(connection.transport is HCIBLETransport)
            let (echo, slots) = try await Self.exercise(connection)
            #expect(echo == "over Bluetooth LE over HCI")
            #expect(slots.contains { $0.image == 0 && $0.slot == 0 && $0.active && $0.confirmed })
            #expect(await link.waitFor("disconnected"))
        }
    }
}
