import McuMgr
import McuMgrConnection
import SMP

/// How a device ended in a fleet upgrade.
public enum FleetDeviceOutcome: Sendable {
    /// The upgrade changed the device (uploaded, tested, reset or confirmed) and it now runs the images.
    case upgraded(FirmwareUpgradeReport)
    /// The device already ran the images as the upgrade wants them; nothing was sent but reads.
    case unchanged(FirmwareUpgradeReport)
    /// The upgrade failed (after its retries).
    case failed(FleetFailure)
    /// The device was never started: the fleet stopped first.
    case notStarted(FleetStopReason)

    /// Whether the device ended upgraded or unchanged.
    public var succeeded: Bool {
        switch self {
        case .upgraded, .unchanged: return true
        case .failed, .notStarted: return false
        }
    }

    /// The upgrade's report, when it succeeded.
    public var report: FirmwareUpgradeReport? {
        switch self {
        case .upgraded(let report), .unchanged(let report): return report
        case .failed, .notStarted: return nil
        }
    }

    /// The failure, when it failed.
    public var failure: FleetFailure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }
}

/// Why and where one device's upgrade failed: the phase (the upgrade's state, or connecting, or
/// the canary health check) and the error, with the device's own error answer when it gave one.
public struct FleetFailure: Error, Sendable, CustomStringConvertible {
    /// Where the device was when it failed.
    public enum Phase: Sendable, Hashable, CustomStringConvertible {
        /// Resolving its profile or opening the connection.
        case connect
        /// The firmware upgrade, in this state.
        case upgrade(FirmwareUpgradeState)
        /// Checking after the upgrade that the device runs the new images, confirmed (canary devices).
        case healthCheck

        /// `connect`, the upgrade state's name (`upload`), or `health-check`.
        public var description: String {
            switch self {
            case .connect: return "connect"
            case .upgrade(let state): return state.rawValue
            case .healthCheck: return "health-check"
            }
        }
    }

    /// What went wrong.
    public enum Reason: Error, Sendable {
        /// The connection could not be opened.
        case connection(ConnectionError)
        /// The device's profile could not be found or read.
        case profile(ProfileStoreError)
        /// The device's profile holds a malformed connection string.
        case connectionString(ConnectionStringError)
        /// The firmware upgrade failed.
        case upgrade(FirmwareUpgradeError)
        /// The health check's session failed.
        case session(SMPError)
        /// The device answers but does not run the new images as wanted.
        case unhealthy(String)
    }

    /// Where the device was.
    public let phase: Phase
    /// What went wrong.
    public let reason: Reason
    /// Whether any attempt got an answer from the device.
    public let reachedDevice: Bool

    /// Makes a failure.
    public init(phase: Phase, reason: Reason, reachedDevice: Bool) {
        self.phase = phase
        self.reason = reason
        self.reachedDevice = reachedDevice
    }

    /// The device's own error answer, when the failure was one.
    public var deviceError: SMPDeviceError? {
        switch reason {
        case .upgrade(let error): return error.deviceError
        case .session(.device(let error)): return error
        default: return nil
        }
    }

    /// Whether another attempt may succeed: session failures (timeouts, lost links, invalid
    /// answers), stalled uploads, devices that did not come back, and busy or out-of-memory
    /// answers are retried; refusals are not (an invalid image or configuration, an image that does
    /// not fit the device or whose signature is rejected, a missing image number, a downgrade, a
    /// bootloader that cannot do the mode, an image the bootloader did not boot, any other error
    /// answer of the device, a missing profile).
    public var isRetriable: Bool {
        switch reason {
        case .connection(.connectFailed): return true
        case .connection, .profile, .connectionString: return false
        case .session(let error): return Self.isTransient(error)
        case .unhealthy: return false
        case .upgrade(let error):
            switch error.reason {
            case .smp(let smp): return Self.isTransient(smp)
            case .upload(.stalled), .upload(.verificationFailed), .upload(.smp): return true
            case .deviceDidNotReturn, .unexpectedState: return true
            case .upload, .invalidImage, .invalidConfiguration, .downgradeRefused, .signatureRejected, .doesNotFit,
                .imageNotActive, .unsupportedBootloaderMode, .notNewerThanRunning, .cancelled:
                return false
            }
        }
    }

    private static func isTransient(_ error: SMPError) -> Bool {
        switch error {
        case .timeout, .transport, .invalidResponse, .closed: return true
        case .device(let answer): return answer.isRefusalForLackOfRoom || answer.status == .timeout
        case .requestTooLarge, .invalidRequest, .cancelled: return false
        }
    }

    /// The error alone, without the phase.
    public var cause: String {
        switch reason {
        case .connection(let error): return error.description
        case .profile(let error): return error.description
        case .connectionString(let error): return error.description
        case .upgrade(let error):
            // The upgrade's message names its state; the phase says it here.
            let text = error.description
            let prefix = "firmware upgrade failed \(error.state.failurePhrase): "
            return text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
        case .session(let error): return error.description
        case .unhealthy(let why): return why
        }
    }

    /// `failed in state upload: <the error>`.
    public var description: String { "failed in state \(phase): \(cause)" }
}

extension FleetDeviceOutcome: CustomStringConvertible {
    /// `upgraded (262696 bytes in 1.23 s, 1 reset)`, `unchanged (already running the images)`,
    /// `failed in state upload: …` or `not started (canary device dev-0 failed)`.
    public var description: String {
        switch self {
        case .upgraded(let report):
            let resets = report.resets == 1 ? "1 reset" : "\(report.resets) resets"
            guard !report.uploadedImages.isEmpty else { return "upgraded (the images were on the device; \(resets))" }
            return "upgraded (\(report.bytesUploaded) bytes in \(TextFormat.fixed(report.uploadDuration.seconds, 2)) s, "
                + "\(TextFormat.rate(report.averageBytesPerSecond)), \(resets))"
        case .unchanged:
            return "unchanged (already running the images)"
        case .failed(let failure):
            return failure.description
        case .notStarted(let reason):
            return "not started (\(reason))"
        }
    }
}

/// Why a fleet stopped starting devices.
public enum FleetStopReason: Sendable, Hashable, CustomStringConvertible {
    /// A canary device failed its upgrade or its health check.
    case canaryFailed(device: String)
    /// As many devices failed as the fleet allows.
    case tooManyFailures(failed: Int, limit: Int)
    /// The fleet was cancelled.
    case cancelled

    /// One line, e.g. `canary device dev-0 failed`.
    public var description: String {
        switch self {
        case .canaryFailed(let device): return "canary device \(device) failed"
        case .tooManyFailures(let failed, let limit): return "\(failed) devices failed (the limit is \(limit))"
        case .cancelled: return "cancelled"
        }
    }
}
