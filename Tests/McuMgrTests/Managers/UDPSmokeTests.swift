import Glibc
import McuBoot
import McuMgr
import SMP
import SMPSimulator
import SMPUDP
import SMPTestSupport
import Testing

@Suite("Managers over UDP")
struct UDPSmokeTests {
    @Test("the session's UDP port is its own: another socket cannot bind it, even with SO_REUSEADDR")
    func clientPortIsNotShared() async throws {
        let transport = UDPTransport(host: "127.0.0.1", port: 9)
        try await transport.connect()
        try await withClosing(transport, close: { await $0.close() }) { (transport) async throws in
            let port = try #require(transport.localAddress?.port)
            let other = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            #expect(other >= 0)
            defer { close(other) }
            var yes: Int32 = 1
            setsockopt(other, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr = in_addr(s_addr: 0)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(other, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            let failure = errno
            #expect(bound == -1)
            #expect(failure == EADDRINUSE)
        }
    }

    /// Serves a simulated device on `host` and runs `body` with a session to it over UDP; closes
    /// both whatever `body` does.
    static func withSession<T>(
        host: String, _ body: (SimulatedDevice, SMPClient, UDPTransport) async throws -> T
    ) async throws -> T {
        let device = SimulatedDevice(configuration: ManagerHarness.configuration(), logger: ManagerHarness.quietLogger)
        let server = try await SimulatorUDPServer.start(device: device, host: host, port: 0)
        #expect(server.port != 0)
        let transport = UDPTransport(host: host, port: server.port, maximumPacketSize: 1472)
        // Loopback UDP loses nothing: no resends, which a slow answer under parallel tests would
        // turn into duplicate writes; the timeout only bounds a hung test.
        let client = SMPClient(transport: transport, configuration: .init(timeout: .seconds(120), retries: 0))
        let result: Result<T, any Error>
        do {
            try await transport.connect()
            result = .success(try await body(device, client, transport))
        } catch {
            result = .failure(error)
        }
        await client.close()
        await server.close()
        return try result.get()
    }

    @Test("a device on an IPv6 address answers: the session's socket is of the device's family, connected to it (its local address is the route's)", arguments: ["::1", "127.0.0.1"])
    func socketFamilyFollowsTheDevice(host: String) async throws {
        let (echoed, local) = try await Self.withSession(host: host) { _, client, transport in
            (try await DefaultManager(client: client).echo("over \(host)"), transport.localAddress)
        }
        #expect(echoed == "over \(host)")
        #expect(local?.protocol == (host.contains(":") ? .inet6 : .inet))
        // Connected to the device (so that ICMP refusals reach it, issue 32): bound to the address
        // of the route to it, here loopback's, no longer the wildcard.
        #expect(local?.ipAddress == host)
    }

    @Test func managersOverUDPAgainstTheSimulator() async throws {
        try await Self.withSession(host: "127.0.0.1") { device, client, _ in
            let os = DefaultManager(client: client)
            #expect(try await os.echo("over udp") == "over udp")
            #expect(try await os.parameters() == McuMgrParameters(bufferSize: 2048, bufferCount: 4))

            let bytes = MCUbootImageMaker.make(version: ImageVersion(1, 4, 2), payloadSize: 2048)
            await device.install(bytes)
            let slots = try await ImageManager(client: client).list()
            #expect(slots.first?.hash == (try McuBootImage(bytes: bytes)).hash)
            #expect(slots.first?.version == "1.4.2")

            let fs = FileSystemManager(client: client)
            let file = FileSystemManagerTests.pattern(5000)
            try await FileSystemManagerTests.upload(file, to: "/lfs1/udp.bin", with: fs, chunk: 1200)
            #expect(try await fs.download(name: "/lfs1/udp.bin") == file)

            #expect(try await ShellManager(client: client).execute(["echo", "hi"]).output == "hi\n")
            #expect(try await EnumerationManager(client: client).count() > 5)
        }
    }
}
