/// The steps of a firmware upgrade, with the names of Nordic's Device Manager libraries.
public enum FirmwareUpgradeState: String, Sendable, Hashable, CaseIterable {
    /// Not started.
    case none
    /// Reading the device's SMP buffer size and count.
    case requestMcuMgrParameters
    /// Reading the bootloader's name and mode.
    case bootloaderInfo
    /// Reading the device's images and planning what to do.
    case validate
    /// Sending image data.
    case upload
    /// Erasing the application's settings storage.
    case eraseAppSettings
    /// Marking the new image to be tried once at the next boot.
    case test
    /// Resetting the device and waiting for it to come back.
    case reset
    /// Making the new image permanent.
    case confirm
    /// Done.
    case success

    /// The step as a person reads it, e.g. `reading the device's SMP buffers` for
    /// `requestMcuMgrParameters` (the raw value keeps Nordic's name, for JSON and reports).
    public var stepName: String {
        switch self {
        case .none: return "not started"
        case .requestMcuMgrParameters: return "reading the device's SMP buffers"
        case .bootloaderInfo: return "reading the bootloader's mode"
        case .validate: return "checking the images against the device"
        case .upload: return "uploading"
        case .eraseAppSettings: return "erasing the application's settings"
        case .test: return "marking the new image for test"
        case .reset: return "resetting the device and waiting for it"
        case .confirm: return "confirming the new image"
        case .success: return "done"
        }
    }

    /// How a failure message names the step: `while uploading`, `before it started`.
    public var failurePhrase: String {
        switch self {
        case .none: return "before it started"
        case .success: return "after it finished"
        default: return "while \(stepName)"
        }
    }
}

/// What the upgrade does once the image is on the device.
public enum FirmwareUpgradeMode: String, Sendable, Hashable, CaseIterable {
    /// Upload, test, reset, and confirm the image after it booted (the safest; default).
    case testAndConfirm = "test-and-confirm"
    /// Upload, mark the image permanent, reset: no revert if it fails to confirm itself.
    case confirmOnly = "confirm-only"
    /// Upload, test and reset; the image (or the application) confirms itself, or MCUboot reverts it.
    case testOnly = "test-only"
    /// Only upload the image to the secondary slot.
    case uploadOnly = "upload-only"
}
