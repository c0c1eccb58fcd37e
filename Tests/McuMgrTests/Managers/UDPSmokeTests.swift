import McuBoot
import McuMgr
import SMP
import SMPSimulator
import SMPUDP
import Testing

@Suite("Managers over UDP")
struct UDPSmokeTests {
    @Test func managersOverUDPAgainstTheSimulator() async throws {
        let device = SimulatedDevice(configuration: ManagerHarness.configuration(), logger: ManagerHarness.quietLogger)
        let server = try await SimulatorUDPServer.start(device: device, host: "127.0.0.1", port: 0)
        #expect(server.port != 0)
        let transport = UDPTransport(host: "127.0.0.1", port: server.port, maximumPacketSize: 1472)
        try await transport.connect()
        let client = SMPClient(transport: transport, configuration: .init(timeout: .seconds(10), retries: 2))

        do {
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
        } catch {
            await client.close()
            await server.close()
            throw error
        }
        await client.close()
        await server.close()
    }
}
