import Logging
import McuBoot
import McuMgr
import McuMgrFleet
import McuMgrConnection
import McuMgrTools
import SMP
import SMPSimulator
import SMPTestSupport
import SMPUDP

/// Simulated devices reached in memory under UDP addresses (127.0.0.2, .3, …): the fleet's `.udp`
/// connector hands out a loopback transport to the device registered for the address, so the
/// fleet runs exactly as over UDP, on the test's virtual time.
struct SimulatedFleet: Sendable {
    /// The devices, by index.
    let devices: [SimulatedDevice]
    /// Their addresses, by index.
    let endpoints: [UDPEndpoint]
    /// The fault of each faulty device.
    let faults: [Int: SimulatorFault]
    /// A connector that reaches the devices (and refuses unknown addresses as unreachable).
    let connector: FleetConnector
    /// The image every device runs at first (1.0.0).
    let runningImage: McuBootImage

    /// The fleet's devices, named `dev-0`, `dev-1`, ….
    var fleetDevices: [FleetDevice] {
        endpoints.enumerated().map { FleetDevice(.udp($0.element), name: "dev-\($0.offset)") }
    }

    /// Makes `count` devices running version 1.0.0 (confirmed) in image 0, the `faults` applied,
    /// then `configure` (by device index).
    static func make(
        count: Int, faults: [Int: SimulatorFault] = [:], parameters: SimulatorFaultParameters = FleetFixtures.faultParameters,
        link: LinkConfiguration = LinkConfiguration(), clock: SMPClock = VirtualRuntime.currentClock,
        configure: (Int, inout DeviceConfiguration) -> Void = { _, _ in }
    ) async throws -> SimulatedFleet {
        let running = try FleetFixtures.image(size: 8 * 1024, version: "1.0.0", seed: 1)
        var devices: [SimulatedDevice] = []
        var endpoints: [UDPEndpoint] = []
        var quiet = Logger(label: "fleet-test-device")
        quiet.logLevel = .critical
        for index in 0..<count {
            var configuration = DeviceConfiguration()
            configuration.imageCount = 1
            configuration.resetDelay = .milliseconds(10)
            configuration.bootDuration = .milliseconds(50)
            var faultConfiguration = FaultConfiguration()
            faultConfiguration.seed = 100 + UInt64(index)
            faults[index]?.apply(to: &configuration, faults: &faultConfiguration, parameters: parameters)
            configure(index, &configuration)
            let device = SimulatedDevice(configuration: configuration, link: link, faults: faultConfiguration, clock: clock, logger: quiet)
            await device.install(running.bytes, image: 0, slot: 0, mark: .confirmed)
            devices.append(device)
            endpoints.append(UDPEndpoint(host: "127.0.0.\(2 + index)", port: 1337))
        }
        let byEndpoint = Dictionary(uniqueKeysWithValues: zip(endpoints, devices))
        var factory = ConnectionFactory()
        factory.register(.udp) { spec, options throws(ConnectionError) in
            guard case .udp(let endpoint) = spec else { throw .unsupported(spec) }
            guard let device = byEndpoint[endpoint] else { throw .connectFailed(spec, reason: .unreachable("no device at \(endpoint)")) }
            return await device.makeLoopbackTransport(maximumPacketSize: options.maximumPacketSize ?? 1472)
        }
        var sessionLogger = Logger(label: "fleet-test-session")
        sessionLogger.logLevel = .critical
        let options = ConnectionOptions(
            clientConfiguration: SMPClient.Configuration(timeout: .milliseconds(500), retries: 2), clock: clock, logger: sessionLogger)
        return SimulatedFleet(
            devices: devices, endpoints: endpoints, faults: faults,
            connector: FleetConnector(factory: factory, options: options, profiles: ProfileStore(path: "/nonexistent/fleet-tests.json")),
            runningImage: running)
    }

    /// Upload requests (image group, command 1) device `index` has seen.
    func uploadRequests(_ index: Int) async -> Int {
        await devices[index].requestLog.filter { $0.group == 1 && $0.command == 1 }.count
    }

    /// Upload requests each device has seen, by index.
    func uploadRequestCounts() async -> [Int] {
        var counts: [Int] = []
        for index in devices.indices { counts.append(await uploadRequests(index)) }
        return counts
    }

    /// Whether device `index` runs `image` from slot 0, confirmed, with the image's bytes in the slot.
    func runsConfirmed(_ index: Int, _ image: McuBootImage) async -> Bool {
        let device = devices[index]
        guard let state = await device.slotStates().first(where: { $0.image == 0 && $0.active }) else { return false }
        let bytes = await device.slotContents(image: 0, slot: 0)
        return state.hash == image.hash && state.confirmed && state.slot == 0 && Array(bytes.prefix(image.bytes.count)) == image.bytes
    }
}

/// Images and configurations for the fleet tests.
enum FleetFixtures {
    /// Faults strong enough to fail a first attempt under ``upgradeConfiguration`` and pass a later one:
    /// a reset 16 KiB into the upload followed by a 10 s boot (the upload stalls first), 30 % drops,
    /// and 14 busy answers (one attempt's 5 s step timeout rides out about 9).
    static let faultParameters = SimulatorFaultParameters(dropPercent: 30, resetOffset: 16 * 1024, slowBootDuration: .seconds(10), busyAnswers: 14)

    /// Deterministic payload bytes.
    static func payload(count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return random.bytes(count)
    }

    /// An unsigned MCUboot image with a 0x200 header.
    static func image(size: Int = 40 * 1024, version: String = "2.0.0", seed: UInt64 = 7) throws -> McuBootImage {
        var builder = McuBootImageBuilder(payload: payload(count: size, seed: seed), version: McuBootVersion(string: version)!)
        builder.headerSize = 0x200
        return try builder.buildImage()
    }

    /// Each device's upgrade, sized for virtual time: short chunk and step timeouts, a reset
    /// timeout longer than the slow boot of a device that resets mid-upload.
    static var upgradeConfiguration: FirmwareUpgradeConfiguration {
        FirmwareUpgradeConfiguration(resetTimeout: .seconds(60), chunkTimeout: .milliseconds(300), stepTimeout: .seconds(5))
    }

    /// A fleet configuration around ``upgradeConfiguration``.
    static func configuration(
        retries: Int = 0, concurrency: FleetConcurrency = FleetConcurrency(), maximumFailures: Int? = nil, canaryCount: Int = 0
    ) -> FleetConfiguration {
        FleetConfiguration(
            upgrade: upgradeConfiguration, concurrency: concurrency, retries: retries, retryBackOff: .seconds(2),
            maximumFailures: maximumFailures, canaryCount: canaryCount, healthCheckTimeout: .seconds(5))
    }
}
