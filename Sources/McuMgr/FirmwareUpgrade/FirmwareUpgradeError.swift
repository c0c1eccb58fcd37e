import McuBoot
import SMP

/// Why a firmware upgrade failed, in which state, and what the device was last seen holding.
public struct FirmwareUpgradeError: Error, Sendable {
    /// What went wrong. A device's error answer arrives only as `.smp(.device(...))`.
    public enum Reason: Sendable {
        /// An image file is not a valid MCUboot image (nothing was sent).
        case invalidImage(index: Int, McuBootError)
        /// The configuration or the image list cannot work (nothing was sent).
        case invalidConfiguration(String)
        /// The session failed (timeout, transport, invalid answer) or the device answered with an error.
        case smp(SMPError)
        /// The upload stopped for a reason of its own (stalled, verification failed).
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
        /// The bootloader's mode cannot carry out the upgrade mode (nothing was uploaded); the
        /// description says what the bootloader supports.
        case unsupportedBootloaderMode(BootloaderMode, FirmwareUpgradeMode)
        /// The bootloader runs the image with the highest version (direct-XIP, RAM load), and the
        /// new image is not newer than the running one, so it would never run (nothing was uploaded).
        case notNewerThanRunning(image: Int, running: String, new: String, bootloader: BootloaderMode)
        /// The upgrade was cancelled; the device keeps what it received.
        case cancelled

        /// The reason for an upload error: session and device errors become `.smp`, cancellation `.cancelled`.
        static func from(_ error: UploadError) -> Reason {
            switch error {
            case .smp(let smp): return .smp(smp)
            case .cancelled: return .cancelled
            case .invalidConfiguration(let why): return .invalidConfiguration(why)
            default: return .upload(error)
            }
        }
    }

    /// The state the upgrade was in.
    public var state: FirmwareUpgradeState
    /// What went wrong.
    public var reason: Reason
    /// The device's image table as last read, when it was read.
    public var lastKnownSlots: [ImageSlot]?

    /// Makes an error.
    public init(state: FirmwareUpgradeState, reason: Reason, lastKnownSlots: [ImageSlot]? = nil) {
        self.state = state
        self.reason = reason
        self.lastKnownSlots = lastKnownSlots
    }

    /// The device's error, when the device answered with one.
    public var deviceError: SMPDeviceError? {
        if case .smp(.device(let error)) = reason { return error }
        return nil
    }
}

extension FirmwareUpgradeError: CustomStringConvertible {
    /// A one-line message naming the state, the cause and, when known, what the device runs now.
    public var description: String {
        let cause: String
        switch reason {
        case .invalidImage(let index, let error): cause = "image \(index) is not a valid MCUboot image: \(error)"
        case .invalidConfiguration(let why): cause = why
        case .smp(.device(let error)): cause = "device error: \(error)"
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
        case .unsupportedBootloaderMode(let bootloader, let mode):
            cause = "the bootloader runs in mode \(bootloader) (\(bootloader.rawValue)), which cannot carry out a "
                + "\(mode.rawValue) upgrade: \(BootPolicy.explanation(of: bootloader))"
        case .notNewerThanRunning(let image, let running, let new, let bootloader):
            cause = "the bootloader (\(bootloader)) runs the image with the highest version, and image \(image) "
                + "version \(new) is not newer than the running \(running), so it would never run"
        case .cancelled: cause = "cancelled"
        }
        var text = "firmware upgrade failed \(state.failurePhrase): \(cause)"
        if let slots = lastKnownSlots, let summary = Self.deviceSummary(slots) { text += "; \(summary)" }
        return text
    }

    /// What the device runs, and whether a reset would revert it.
    static func deviceSummary(_ slots: [ImageSlot]) -> String? {
        let running = slots.filter(\.active)
        guard !running.isEmpty else { return nil }
        let parts = running.map { slot -> String in
            let prefix = running.count > 1 ? "image \(slot.image) " : ""
            if slot.confirmed { return "\(prefix)\(slot.version) confirmed" }
            return "\(prefix)\(slot.version) unconfirmed (MCUboot reverts it at the next reset unless it is confirmed)"
        }
        return "the device was last seen running " + parts.joined(separator: ", ")
    }
}
