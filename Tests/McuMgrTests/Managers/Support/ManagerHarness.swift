import SMPTestSupport
import CBOR
import Logging
import McuBoot
import McuMgr
import SMP
import SMPSimulator
import Testing

/// A simulated device served over an in-memory loopback, with a client and every manager on it.
struct ManagerHarness {
    let device: SimulatedDevice
    let client: SMPClient

    var os: DefaultManager { DefaultManager(client: client) }
    var image: ImageManager { ImageManager(client: client) }
    var stats: StatsManager { StatsManager(client: client) }
    var config: ConfigManager { ConfigManager(client: client) }
    var log: LogManager { LogManager(client: client) }
    var fs: FileSystemManager { FileSystemManager(client: client) }
    var shell: ShellManager { ShellManager(client: client) }
    var enumeration: EnumerationManager { EnumerationManager(client: client) }
    var basic: BasicManager { BasicManager(client: client) }

    /// The simulator's log, at warnings and above only.
    static var quietLogger: Logger {
        var logger = Logger(label: "smp-simulator")
        logger.logLevel = .warning
        return logger
    }

    /// The default test device: quick resets, clock set, everything else as `DeviceConfiguration()`.
    static func configuration(_ adjust: (inout DeviceConfiguration) -> Void = { _ in }) -> DeviceConfiguration {
        var configuration = DeviceConfiguration()
        configuration.resetDelay = .milliseconds(20)
        configuration.bootDuration = .milliseconds(20)
        configuration.clockStartsSet = true
        adjust(&configuration)
        return configuration
    }

    /// Runs `body` against a fresh default device, then closes the client and stops the device.
    static func with(_ body: (ManagerHarness) async throws -> Void) async throws {
        try await with({ _ in }, body)
    }

    /// Runs `body` against a fresh device built by `adjust`, then closes the client and stops the device.
    static func with(
        _ adjust: (inout DeviceConfiguration) -> Void,
        _ body: (ManagerHarness) async throws -> Void
    ) async throws {
        let clock = VirtualRuntime.currentClock
        // A millisecond of (virtual) latency, so that pipelined requests meet at the device.
        let device = SimulatedDevice(
            configuration: configuration(adjust), link: LinkConfiguration(latency: .milliseconds(1)), clock: clock, logger: quietLogger)
        let transport = await device.makeLoopbackTransport()
        let client = SMPClient(transport: transport, configuration: .init(timeout: .seconds(1), retries: 3), clock: clock)
        let harness = ManagerHarness(device: device, client: client)
        do {
            try await body(harness)
        } catch {
            await harness.close()
            throw error
        }
        await harness.close()
    }

    func close() async {
        await client.close()
        await device.stopServing()
    }

    /// Installs a fresh MCUboot image in `slot` of `image` and returns it parsed.
    @discardableResult
    func install(version: ImageVersion, payloadSize: Int = 4096, seed: UInt64 = 0, image: Int = 0, slot: Int = 0) async throws -> McuBootImage {
        let bytes = MCUbootImageMaker.make(version: version, payloadSize: payloadSize, seed: seed)
        await device.install(bytes, image: image, slot: slot)
        return try McuBootImage(bytes: bytes)
    }

    /// Waits until the device has booted `count` times and answers again.
    func waitForBoot(_ count: Int) async throws {
        let clock = device.clock
        let deadline = clock.now + .seconds(5)
        while await device.bootCount < count {
            guard clock.now < deadline else {
                Issue.record("the device did not reboot")
                return
            }
            try await clock.sleep(for: .milliseconds(5))
        }
        await device.waitUntilOnline()
    }
}

/// Runs `body` and returns the device error it throws; records an issue when it throws anything else or nothing.
func deviceError(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> SMPDeviceError? {
    do {
        try await body()
        Issue.record("expected a device error, but the call succeeded", sourceLocation: sourceLocation)
    } catch SMPError.device(let error) {
        return error
    } catch FileDownloadError.smp(.device(let error)) {
        return error
    } catch {
        Issue.record("expected a device error, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Runs `body` and returns the message of the `SMPError.invalidResponse` it throws; records an issue when it throws anything else or nothing.
func invalidResponse(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> String? {
    do {
        try await body()
        Issue.record("expected an invalid response, but the call succeeded", sourceLocation: sourceLocation)
    } catch SMPError.invalidResponse(let message) {
        return message
    } catch FileDownloadError.smp(.invalidResponse(let message)) {
        return message
    } catch {
        Issue.record("expected an invalid response, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
