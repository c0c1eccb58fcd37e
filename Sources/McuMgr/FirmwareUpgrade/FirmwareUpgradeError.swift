import McuBoot
import SMP

/// Why a firmware upgrade failed, and in which state.
public struct FirmwareUpgradeError: Error, Sendable {
    /// What went wrong.
    public enum Reason: Sendable {
        /// An image file is not a valid MCUboot image (nothing was sent).
        case invalidImage(index: Int, McuBootError)
        /// The configuration or the image list cannot work (nothing was sent).
        case invalidConfiguration(String)
        /// The device answered with an error.
        case device(SMPDeviceError)
        /// The session failed (timeout, transport).
        case smp(SMPError)
        /// The upload failed.
        case upload(UploadError)
        /// The image is not newer than the one running.
        case downgradeRefused(image: Int, running: String, new: String)
        /// An image's signature does not verify with the configured keys (nothing was uploaded).
        case signatureRejected(image: Int, McuBootError)
        /// An image does not fit the device (size, image number, dependency, security counter); nothing was uploaded.
        case doesNotFit(FirmwareUpgradeFitProblem)
        /// After the reset, the device does not run the new image (it was refused or reverted).
        case imageNotActive(image: Int)
        /// The device did not answer again within the reset timeout.
        case deviceDidNotReturn
        /// The device is not in the state the plan expected.
        case unexpectedState(String)
        /// The upgrade was cancelled; the device keeps what it received.
        case cancelled
    }

    /// The state the upgrade was in.
    public var state: FirmwareUpgradeState
    /// What went wrong.
    public var reason: Reason

    /// Makes an error.
    public init(state: FirmwareUpgradeState, reason: Reason) {
        self.state = state
        self.reason = reason
    }

    /// The device's error, when the device answered with one.
    public var deviceError: SMPDeviceError? {
        switch reason {
        case .device(let e): return e
        case .smp(.device(let e)): return e
        case .upload(.device(let e)): return e
        default: return nil
        }
    }
}

extension FirmwareUpgradeError: CustomStringConvertible {
    /// A one-line message naming the state and the cause.
    public var description: String {
        let cause: String
        switch reason {
        case .invalidImage(let index, let error): cause = "image \(index) is not a valid MCUboot image: \(error)"
        case .invalidConfiguration(let why): cause = why
        case .device(let error): cause = "device error: \(error)"
        case .smp(let error): cause = error.description
        case .upload(let error): cause = error.description
        case .downgradeRefused(let image, let running, let new):
            cause = "image \(image) version \(new) is not newer than the running \(running) (downgrade refused)"
        case .signatureRejected(let image, let error): cause = "image \(image) signature check failed: \(error)"
        case .doesNotFit(let problem): cause = problem.description
        case .imageNotActive(let image):
            cause = "after the reset the device does not run the new image \(image) (refused or reverted by the bootloader)"
        case .deviceDidNotReturn: cause = "the device did not answer again after the reset"
        case .unexpectedState(let why): cause = why
        case .cancelled: cause = "cancelled"
        }
        return "firmware upgrade failed in state \(state.rawValue): \(cause)"
    }
}
