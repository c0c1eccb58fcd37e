import Logging
import SMP

/// The in-process simulated device behind `--sim`: a fresh `mcumgr-sim` with its defaults
/// (two images running version 1.0.0 in slot 0, empty secondary slots), reached in memory.
/// Nothing it holds outlives the connection.
public enum BuiltInSimulator {
    /// The version of the images the simulated device runs.
    public static let runningVersion = ImageVersion(1, 0, 0)

    /// Makes the device and a loopback transport to it (not yet connected).
    public static func makeTransport(maximumPacketSize: Int?) async -> LoopbackTransport {
        var deviceLogger = Logger(label: "mcumgr.sim")
        deviceLogger.logLevel = .warning
        let device = SimulatedDevice(logger: deviceLogger)
        await device.installRunningImages(version: runningVersion, payloadSize: 65_536)
        return await device.makeLoopbackTransport(maximumPacketSize: maximumPacketSize)
    }
}
