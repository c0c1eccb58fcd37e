import McuMgr
import SMP

/// The end of a fleet upgrade: how each device ended and why the fleet stopped (if it did).
public struct FleetReport: Sendable {
    /// One entry per device, in fleet order.
    public let devices: [FleetDeviceResult]
    /// Why no more devices were started, if the fleet stopped early.
    public let stopReason: FleetStopReason?
    /// Time from start to the end of the last device.
    public let duration: Duration

    /// Makes the report of devices with these final statuses.
    init(statuses: [FleetDeviceStatus], stopReason: FleetStopReason?, duration: Duration) {
        self.devices = statuses.map { FleetDeviceResult(status: $0) }
        self.stopReason = stopReason
        self.duration = duration
    }

    /// Devices that ended upgraded.
    public var upgraded: [FleetDeviceResult] { devices.filter { if case .upgraded = $0.outcome { return true } else { return false } } }
    /// Devices that were already up to date.
    public var unchanged: [FleetDeviceResult] { devices.filter { if case .unchanged = $0.outcome { return true } else { return false } } }
    /// Devices that failed.
    public var failed: [FleetDeviceResult] { devices.filter { $0.outcome.failure != nil } }
    /// Devices never started.
    public var notStarted: [FleetDeviceResult] { devices.filter { if case .notStarted = $0.outcome { return true } else { return false } } }

    /// Whether every device ended upgraded or unchanged.
    public var succeeded: Bool { devices.allSatisfy(\.outcome.succeeded) }

    /// Image bytes uploaded across the fleet.
    public var bytesUploaded: Int { devices.reduce(0) { $0 + ($1.outcome.report?.bytesUploaded ?? 0) } }
}

/// How one device of a fleet ended.
public struct FleetDeviceResult: Sendable {
    /// The device.
    public let device: FleetDevice
    /// How it ended.
    public let outcome: FleetDeviceOutcome
    /// Attempts made (0 when never started).
    public let attempts: Int

    init(status: FleetDeviceStatus) {
        device = status.device
        outcome = status.outcome ?? .notStarted(.cancelled)
        attempts = status.attempts
    }

    /// `upgraded`, `unchanged`, `failed` or `not started`.
    public var resultName: String {
        switch outcome {
        case .upgraded: return "upgraded"
        case .unchanged: return "unchanged"
        case .failed: return "failed"
        case .notStarted: return "not started"
        }
    }
}
