import SMPTestSupport
import McuBoot
import McuMgr
import SMP
import SMPSimulator

/// Images and devices for the upgrade tests.
enum UpgradeFixtures {
    /// Deterministic pseudo-random payload bytes.
    static func payload(count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return random.bytes(count)
    }

    /// An unsigned MCUboot image with a 0x200 header.
    static func image(size: Int = 64 * 1024, version: String = "2.0.0", seed: UInt64 = 7) throws -> McuBootImage {
        var builder = McuBootImageBuilder(payload: payload(count: size, seed: seed), version: McuBootVersion(string: version)!)
        builder.headerSize = 0x200
        return try builder.buildImage()
    }

    /// The image the simulated device runs at start (version 1.0.0).
    static func runningImage(seed: UInt64 = 1) throws -> McuBootImage {
        try image(size: 16 * 1024, version: "1.0.0", seed: seed)
    }

    /// A device running version 1.0.0 in images 0 and 1, served over an in-memory loopback, and a session to it.
    static func device(
        configuration: DeviceConfiguration = DeviceConfiguration(), link: LinkConfiguration = LinkConfiguration(),
        faults: FaultConfiguration = FaultConfiguration(), disconnectsOnReset: Bool = false,
        maximumPacketSize: Int? = nil
    ) async throws -> (SimulatedDevice, SMPClient) {
        let (device, client, _) = try await deviceAndLink(
            configuration: configuration, link: link, faults: faults, disconnectsOnReset: disconnectsOnReset, maximumPacketSize: maximumPacketSize)
        return (device, client)
    }

    /// As ``device(configuration:link:faults:disconnectsOnReset:maximumPacketSize:)``, with the loopback link too.
    static func deviceAndLink(
        configuration: DeviceConfiguration = DeviceConfiguration(), link: LinkConfiguration = LinkConfiguration(),
        faults: FaultConfiguration = FaultConfiguration(), disconnectsOnReset: Bool = false,
        maximumPacketSize: Int? = nil
    ) async throws -> (SimulatedDevice, SMPClient, LoopbackTransport) {
        let clock = VirtualRuntime.currentClock
        let device = SimulatedDevice(configuration: configuration, link: link, faults: faults, clock: clock)
        await device.install(try runningImage().bytes, image: 0, slot: 0)
        if configuration.imageCount > 1 {
            await device.install(try runningImage(seed: 2).bytes, image: 1, slot: 0)
        }
        let transport = await device.makeLoopbackTransport(maximumPacketSize: maximumPacketSize, disconnectsOnReset: disconnectsOnReset)
        let client = SMPClient(
            transport: transport,
            configuration: SMPClient.Configuration(timeout: .milliseconds(500), retries: 2), clock: clock
        )
        return (device, client, transport)
    }

    /// A fast test configuration: short swap time and reset timeout.
    static func configuration(
        mode: FirmwareUpgradeMode = .testAndConfirm, depth: Int? = nil, alignment: Int = 1
    ) -> FirmwareUpgradeConfiguration {
        FirmwareUpgradeConfiguration(
            mode: mode, pipelineDepth: depth, byteAlignment: alignment,
            resetTimeout: .seconds(20), chunkTimeout: .milliseconds(300)
        )
    }

    /// Upload requests (group 1, command 1) the device saw.
    static func uploadRequests(_ device: SimulatedDevice) async -> [RequestRecord] {
        await device.requestLog.filter { $0.group == 1 && $0.command == 1 }
    }
}
