import Logging
import McuMgr
import McuMgrConnection
import SMP
import SMPBLE
import SMPSimulator
import SMPUDP
import Testing

/// The registry that turns specs into sessions: the kinds `standard` holds and the one it leaves
/// to programs, failures that name what failed, and plugging in a new transport.
@Suite("Connection factory")
struct ConnectionFactoryTests {
    @Test("standard connects UDP, serial and the three Bluetooth LE kinds, not the simulator: a program registers that itself")
    func standardKinds() async throws {
        let factory = ConnectionFactory.standard
        #expect(TransportKind.allCases.filter(factory.isAvailable) == [.udp, .ble, .bluez, .hci, .serial])
        await #expect(throws: ConnectionError.transportUnavailable(.simulator)) { try await factory.connect(.simulator) }
        #expect(ConnectionError.transportUnavailable(.simulator).description
            == "the built-in simulator is not available: no connector for it is registered with this connection factory")
    }

    @Test("an unresolvable UDP host fails with the transport's reason")
    func unreachable() async throws {
        let spec = ConnectionSpec.udp(UDPEndpoint(host: "nosuchhost.invalid", port: 1337))
        let error = try await #require(throws: ConnectionError.self) { try await ConnectionFactory.standard.connect(spec) }
        guard case .connectFailed(spec, _) = error else { Issue.record("\(error)"); return }
        #expect(error.description.hasPrefix("cannot reach nosuchhost.invalid:1337 over UDP: "))
    }

    @Test("Bluetooth LE through BlueZ: scanning on a kernel without Bluetooth fails with an error that says so")
    func blueZScanWithoutBluetooth() async throws {
        let scan = ConnectionSpec.ble(BLEConnectionParameters(peer: .scan))
        let error = try await #require(throws: ConnectionError.self) { try await ConnectionFactory.standard.scan(scan, for: .seconds(1)) }
        guard case .connectFailed(scan, .unreachable(let why)) = error else { Issue.record("\(error)"); return }
        #expect(why.hasPrefix("Bluetooth is not available"), "\(why)")
    }

    @Test("an HCI controller that is not there: a connection error naming it")
    func missingHCIController() async throws {
        let spec = try ConnectionSpec(type: "ble", connString: "peer_name=x,hci=tcp:127.0.0.1:1")
        #expect(spec.kind == .hci)
        let error = try await #require(throws: ConnectionError.self) { try await ConnectionFactory.standard.connect(spec) }
        guard case .connectFailed(spec, _) = error else { Issue.record("\(error)"); return }
        #expect(error.description.contains("tcp:127.0.0.1:1"))
    }

    @Test("a serial device that is not there: a connection error naming the device")
    func missingSerialDevice() async throws {
        let spec = try ConnectionSpec(type: "serial", connString: "dev=/dev/ttyNOSUCH0,baud=115200")
        let error = try await #require(throws: ConnectionError.self) { try await ConnectionFactory.standard.connect(spec) }
        guard case .connectFailed(spec, _) = error else { Issue.record("\(error)"); return }
        #expect(error.description.contains("/dev/ttyNOSUCH0"))
    }

    @Test("a transport registered with one entry serves its kind")
    func register() async throws {
        var factory = ConnectionFactory.standard
        let device = SimulatedDevice()
        factory.register(.serial) { spec, options throws(ConnectionError) in
            guard case .serial(let parameters) = spec, parameters.device == "/dev/ttySIM" else { throw .unsupported(spec) }
            let transport = await device.makeLoopbackTransport(maximumPacketSize: parameters.maximumPacketSize ?? options.maximumPacketSize)
            try await ConnectionFactory.open(transport, spec: spec)
            return transport
        }
        #expect(factory.isAvailable(.serial))
        let spec = try ConnectionSpec(type: "serial", connString: "dev=/dev/ttySIM,mtu=128")
        let connection = try await factory.connect(spec)
        #expect(await connection.transport.maximumPacketSize == 128)
        let answer = try await DefaultManager(client: connection.client).echo("plugged in")
        await connection.close()
        #expect(answer == "plugged in")
        let other = ConnectionSpec.serial(SerialConnectionParameters(device: "/dev/ttyOTHER"))
        await #expect(throws: ConnectionError.unsupported(other)) { try await factory.connect(other) }
    }

    @Test("a session error inside withClient still closes the session and reaches the caller")
    func closesOnError() async throws {
        struct Stop: Error {}
        var factory = ConnectionFactory()
        factory.register(.simulator) { spec, options throws(ConnectionError) in
            let transport = await SimulatedDevice().makeLoopbackTransport(maximumPacketSize: options.maximumPacketSize)
            try await ConnectionFactory.open(transport, spec: spec)
            return transport
        }
        let connection = try await factory.connect(.simulator)
        await connection.close()
        await #expect(throws: SMPError.self) { try await DefaultManager(client: connection.client).echo("after close") }
        await #expect(throws: Stop.self) {
            try await factory.withClient(.simulator) { _ in throw Stop() }
        }
        #expect(try await factory.withClient(.simulator) { try await DefaultManager(client: $0).echo("inside") } == "inside")
    }
}
