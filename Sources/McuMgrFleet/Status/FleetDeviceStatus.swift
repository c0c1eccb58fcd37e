import McuMgr
import Synchronization

/// Where one device of a fleet stands now: its phase, attempts, upload progress and, at the end,
/// its outcome.
public struct FleetDeviceStatus: Sendable {
    /// The device.
    public let device: FleetDevice
    /// What it is doing.
    public internal(set) var phase: FleetDevicePhase = .waiting
    /// Attempts started so far (0 before the first).
    public internal(set) var attempts = 0
    /// The current upload's progress (bytes, total, rate), once an upload started.
    public internal(set) var progress: UploadProgress?
    /// How it ended, once it has.
    public internal(set) var outcome: FleetDeviceOutcome?
    /// The last failed attempt's failure (also while waiting to retry).
    public internal(set) var lastFailure: FleetFailure?
    /// Whether the device has answered at least once.
    public internal(set) var reachedDevice = false
    /// Whether an attempt entered a state that changes the device (upload, test, confirm, reset, erase settings).
    public internal(set) var changedDevice = false

    /// Makes the status of a device not yet started.
    public init(device: FleetDevice) {
        self.device = device
    }
}

/// What a fleet device is doing.
public enum FleetDevicePhase: Sendable, Hashable, CustomStringConvertible {
    /// Not started yet.
    case waiting
    /// Opening its connection.
    case connecting
    /// Upgrading, in this state.
    case upgrading(FirmwareUpgradeState)
    /// Waiting to retry after a failed attempt.
    case waitingToRetry
    /// Checking that a canary device runs the new images, confirmed.
    case checkingHealth
    /// Finished (see the outcome).
    case finished

    /// `waiting`, `connecting`, the upgrade state's name, `retry wait`, `health check` or `finished`.
    public var description: String {
        switch self {
        case .waiting: return "waiting"
        case .connecting: return "connecting"
        case .upgrading(let state): return state.rawValue
        case .waitingToRetry: return "retry wait"
        case .checkingHealth: return "health check"
        case .finished: return "finished"
        }
    }
}

/// The statuses of a fleet's devices, shared between the devices' tasks and whoever reads them.
final class FleetStatusBoard: Sendable {
    private let statuses: Mutex<[FleetDeviceStatus]>

    init(devices: [FleetDevice]) {
        statuses = Mutex(devices.map { FleetDeviceStatus(device: $0) })
    }

    /// Every device's status, in fleet order.
    var all: [FleetDeviceStatus] { statuses.withLock { $0 } }

    /// One device's status.
    func status(of index: Int) -> FleetDeviceStatus { statuses.withLock { $0[index] } }

    /// Changes one device's status and returns the new one.
    @discardableResult
    func update(_ index: Int, _ change: (inout FleetDeviceStatus) -> Void) -> FleetDeviceStatus {
        statuses.withLock { all in
            change(&all[index])
            return all[index]
        }
    }
}
