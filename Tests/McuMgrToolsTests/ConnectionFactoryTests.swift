import Logging
import McuMgr
import McuMgrTools
import SMP
import SMPSimulator
import SMPUDP
import Testing

/// The registry that turns specs into sessions: the built-in kinds, the ones still missing, and plugging in a new one.
@Suite("Connection factory")
struct ConnectionFactoryTests {
    @Test("the built-in simulator answers, with --mtu as its packet size")
    func simulator() async throws {
        let factory = ConnectionFactory.standard
        #expect(factory.isAvailable(.simulator) && factory.isAvailable(.udp))
        let connection = try await factory.connect(.simulator, options: ConnectionOptions(maximumPacketSize: 256))
        #expect(await connection.transport.maximumPacketSize == 256)
        let echo = try await DefaultManager(client: connection.client).echo("hello")
        await connection.close()
        #expect(echo == "hello")
        let slots = try await factory.withClient(.simulator) { try await ImageManager(client: $0).list() }
        #expect(slots.contains { $0.slot == 0 && $0.active && $0.version == BuiltInSimulator.runningVersion.description })
    }

    @Test("UDP reaches a simulator served on a real socket")
    func udp() async throws {
        let device = SimulatedDevice()
        let server = try await SimulatorUDPServer.start(device: device, host: "127.0.0.1", port: 0)
        let spec = try ConnectionSpec(type: "udp", connString: "[127.0.0.1]:\(server.port)")
        let connection = try await ConnectionFactory.standard.connect(spec)
        let answer = try await DefaultManager(client: connection.client).echo("over udp")
        await connection.close()
        await server.close()
        #expect(answer == "over udp")
        #expect(connection.spec == spec)
    }

    @Test("an unresolvable UDP host fails with the transport's reason and exit status 3")
    func unreachable() async throws {
        let spec = ConnectionSpec.udp(UDPEndpoint(host: "nosuchhost.invalid", port: 1337))
        let error = try await #require(throws: ConnectionError.self) { try await ConnectionFactory.standard.connect(spec) }
        guard case .connectFailed(spec, _) = error else { Issue.record("\(error)"); return }
        #expect(error.description.hasPrefix("cannot reach nosuchhost.invalid:1337 over UDP: "))
        #expect(CommandFailure(error).status == .transport)
    }

    @Test("Bluetooth LE and HCI specs parse, and connecting says they are not available yet", arguments: [
        ("ble", "peer_id=AA:BB:CC:DD:EE:FF", TransportKind.ble),
        ("ble", "peer_name=x,hci=tcp:127.0.0.1:9001", .hci),
    ])
    func unavailable(type: String, connString: String, kind: TransportKind) async throws {
        let spec = try ConnectionSpec(type: type, connString: connString)
        #expect(spec.kind == kind)
        #expect(!ConnectionFactory.standard.isAvailable(kind))
        await #expect(throws: ConnectionError.transportUnavailable(kind)) { try await ConnectionFactory.standard.connect(spec) }
        #expect(CommandFailure(ConnectionError.transportUnavailable(kind)).status == .transport)
    }

    @Test("a serial device that is not there: a transport error naming the device, exit 3")
    func missingSerialDevice() async throws {
        let spec = try ConnectionSpec(type: "serial", connString: "dev=/dev/ttyNOSUCH0,baud=115200")
        #expect(ConnectionFactory.standard.isAvailable(.serial))
        let error = try await #require(throws: ConnectionError.self) { try await ConnectionFactory.standard.connect(spec) }
        #expect(error.description.contains("/dev/ttyNOSUCH0"))
        #expect(CommandFailure(error).status == .transport)
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
        let connection = try await ConnectionFactory.standard.connect(.simulator)
        await connection.close()
        await #expect(throws: SMPError.self) { try await DefaultManager(client: connection.client).echo("after close") }
        await #expect(throws: Stop.self) {
            try await ConnectionFactory.standard.withClient(.simulator) { _ in throw Stop() }
        }
    }
}
