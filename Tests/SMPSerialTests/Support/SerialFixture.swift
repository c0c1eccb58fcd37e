import Foundation
import Logging
import McuBoot
import McuMgr
import SMP
import SMPSerial
import SMPSimulator
import SMPTestSupport

/// A simulated device served on a pty in this process, and our transport and session to it.
enum SerialFixture {
    /// A logger that prints nothing.
    static let quiet: Logger = {
        var logger = Logger(label: "serial-tests")
        logger.logLevel = .critical
        return logger
    }()

    /// Deterministic pseudo-random bytes.
    static func payload(count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return random.bytes(count)
    }

    /// An unsigned MCUboot image with a 0x200 header.
    static func image(size: Int, version: String = "2.0.0", seed: UInt64 = 7) throws -> McuBootImage {
        var builder = McuBootImageBuilder(payload: payload(count: size, seed: seed), version: McuBootVersion(string: version)!)
        builder.headerSize = 0x200
        return try builder.buildImage()
    }

    /// A device running version 1.0.0 in images 0 and 1, with short reboots.
    static func device(bufferSize: Int = 2048, bufferCount: Int = 4) async throws -> SimulatedDevice {
        var configuration = DeviceConfiguration()
        configuration.bufferSize = bufferSize
        configuration.bufferCount = bufferCount
        configuration.resetDelay = .milliseconds(50)
        configuration.bootDuration = .milliseconds(100)
        let device = SimulatedDevice(configuration: configuration, logger: quiet)
        await device.install(try image(size: 16 * 1024, version: "1.0.0", seed: 1).bytes, image: 0, slot: 0)
        await device.install(try image(size: 16 * 1024, version: "1.0.0", seed: 2).bytes, image: 1, slot: 0)
        return device
    }

    /// Our transport (connected) and a session over it.
    static func client(
        path: String, framing: SerialFraming = .console, lineLength: Int = 127, packetSize: Int? = nil,
        maximumInFlight: Int = 1
    ) async throws -> (SerialTransport, SMPClient) {
        let transport = try SerialTransport(options: SerialConnectionOptions(
            path: path, lineLength: lineLength, framing: framing, packetSize: packetSize))
        try await transport.connect()
        let client = SMPClient(
            transport: transport, configuration: SMPClient.Configuration(timeout: .seconds(10), retries: 3, maximumInFlight: maximumInFlight),
            logger: quiet)
        return (transport, client)
    }
}

extension SerialFixture {
    /// Serves `device` on a new pty for the duration of `body`, and closes it whatever happens.
    static func serving<T>(
        _ device: SimulatedDevice, options: SimulatorSerialServer.Options = .init(),
        _ body: (SimulatorSerialServer) async throws -> T
    ) async throws -> T {
        let server = try await SimulatorSerialServer.start(device: device, options: options)
        do {
            let result = try await body(server)
            await server.close()
            return result
        } catch {
            await server.close()
            throw error
        }
    }
}
