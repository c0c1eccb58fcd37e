import Foundation
import GATT
import Logging
import McuBoot
import McuMgr
import SMP
import SMPBLE
import SMPSimulator
import SMPTestSupport

/// Devices served as GATT peripherals, and BLE transports connected to them over socketpairs.
enum BLEFixtures {
    static let quietLogger: Logger = {
        var logger = Logger(label: "smp-ble-test")
        logger.logLevel = .critical
        return logger
    }()

    /// A fast-booting device configuration (short reset and boot), clock set.
    static func configuration(_ adjust: (inout DeviceConfiguration) -> Void = { _ in }) -> DeviceConfiguration {
        var configuration = DeviceConfiguration()
        configuration.resetDelay = .milliseconds(20)
        configuration.bootDuration = .milliseconds(50)
        configuration.clockStartsSet = true
        adjust(&configuration)
        return configuration
    }

    /// A connector that reaches the peripheral through a new socketpair on each call.
    static func connector(_ peripheral: SimulatorGATTPeripheral) -> BLEConnector {
        BLEConnector("simulated device") { () async throws(BLEError) -> any ATTBearer in
            do {
                return try await peripheral.connectSocketPair()
            } catch {
                throw .hostDown("\(error)")
            }
        }
    }

    /// A device running version 1.0.0, its GATT peripheral, and a connected BLE transport.
    static func connected(
        device configuration: DeviceConfiguration = BLEFixtures.configuration(), gatt: GATTPeripheralConfiguration = GATTPeripheralConfiguration(),
        preferredMTU: Int = 498, reassemblyBufferSize: Int? = nil
    ) async throws -> (SimulatedDevice, SimulatorGATTPeripheral, BLETransport) {
        let device = SimulatedDevice(configuration: configuration, logger: quietLogger)
        await device.install(try runningImage().bytes, image: 0, slot: 0)
        if configuration.imageCount > 1 { await device.install(try runningImage(seed: 2).bytes, image: 1, slot: 0) }
        let peripheral = await SimulatorGATTPeripheral.start(device: device, configuration: gatt, logger: quietLogger)
        let transport = BLETransport(
            connector: connector(peripheral),
            configuration: BLETransport.Configuration(
                preferredMTU: preferredMTU, transactionTimeout: .seconds(60), reassemblyBufferSize: reassemblyBufferSize,
                deviceReassembles: reassemblyBufferSize != nil),
            logger: quietLogger)
        try await transport.connect()
        return (device, peripheral, transport)
    }

    /// A session over `transport` with test timeouts.
    static func client(_ transport: some SMPTransport) -> SMPClient {
        // Generous: these run over real sockets and threads on a machine shared with the parallel suite.
        SMPClient(transport: transport, configuration: SMPClient.Configuration(timeout: .seconds(20), retries: 2), logger: quietLogger)
    }

    /// The image the device runs at start (version 1.0.0).
    static func runningImage(seed: UInt64 = 1) throws -> McuBootImage {
        var builder = McuBootImageBuilder(payload: payload(count: 16 * 1024, seed: seed), version: McuBootVersion(string: "1.0.0")!)
        builder.headerSize = 0x200
        return try builder.buildImage()
    }

    /// Deterministic pseudo-random bytes.
    static func payload(count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return random.bytes(count)
    }

    /// A fast upgrade configuration.
    static func upgrade(depth: Int?, reassembly: Int? = nil) -> FirmwareUpgradeConfiguration {
        FirmwareUpgradeConfiguration(
            mode: .testAndConfirm, pipelineDepth: depth, reassemblyBufferSize: reassembly, resetTimeout: .seconds(30),
            chunkTimeout: .seconds(2))
    }
}

/// An MCUboot image made once per test process by the venv's `imgtool create` (≥ 200 KiB).
actor ImgtoolImage {
    static let shared = ImgtoolImage()
    private var made: [String: Task<McuBootImage, any Error>] = [:]

    /// The image of `size` pseudo-random payload bytes at `version`, made once however many tests ask.
    func image(version: String = "2.1.0", size: Int = 210 * 1024) async throws -> McuBootImage {
        let key = "\(version)-\(size)"
        if let task = made[key] { return try await task.value }
        let task = Task { try await Self.make(version: version, size: size, key: key) }
        made[key] = task
        return try await task.value
    }

    private static func make(version: String, size: Int, key: String) async throws -> McuBootImage {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smpble-image-\(getpid())-\(key)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("app.bin")
        let output = directory.appendingPathComponent("app.signed.bin")
        try Data(BLEFixtures.payload(count: size, seed: 11)).write(to: input)
        _ = try await Subprocess.venvTool(
            "imgtool",
            ["create", "--align", "4", "--version", version, "--header-size", "0x200", "--pad-header", "--slot-size", "0x80000",
             input.path, output.path])
        return try McuBootImage(bytes: [UInt8](try Data(contentsOf: output)))
    }
}
