/// What the bootloader's mode means for planning an upgrade (smp-reference §3.1, §6.5).
struct BootPolicy: Equatable, Sendable {
    /// The mode; `nil` when the device did not say (planned as a swap mode).
    let bootloader: BootloaderMode?

    init(_ bootloader: BootloaderMode?) {
        self.bootloader = bootloader
    }

    /// Test and confirm exist, and the pending and confirmed flags hold slots: every mode but
    /// direct-XIP without revert (whose state write Zephyr compiles out), RAM load and the
    /// single-slot modes.
    var statesExist: Bool {
        switch bootloader {
        case .directXIP, .ramLoad, .singleSlotRAMLoad, .singleApplication, .firmwareLoader: return false
        default: return true
        }
    }

    /// MCUboot runs the valid image with the highest version (direct-XIP, RAM load), so an image
    /// that is not newer than the running one would never boot.
    var bootsHighestVersion: Bool {
        switch bootloader {
        case .directXIP, .directXIPWithRevert, .ramLoad, .singleSlotRAMLoad: return true
        default: return false
        }
    }

    /// Whether the upgrade `mode` can run: RAM load and the single-slot modes support upload-only.
    func supports(_ mode: FirmwareUpgradeMode) -> Bool {
        switch bootloader {
        case .ramLoad, .singleSlotRAMLoad, .singleApplication, .firmwareLoader: return mode == .uploadOnly
        default: return true
        }
    }

    /// What a bootloader that refuses an upgrade mode does and does not support, in a sentence or two.
    static func explanation(of bootloader: BootloaderMode) -> String {
        switch bootloader {
        case .ramLoad, .singleSlotRAMLoad:
            return "at every boot MCUboot loads the valid image with the highest version into RAM; test and confirm "
                + "do not choose the image and nothing reverts. Supported: upload-only with an image newer than the "
                + "running one, then reset the device"
        case .firmwareLoader:
            return "the application slot is written by a separate firmware loader and there is no test, confirm or "
                + "revert. Supported: upload-only while connected to the firmware loader, then reset the device to "
                + "start the application"
        case .singleApplication:
            return "there is a single application slot, which the running application cannot replace, and no test, "
                + "confirm or revert. Supported: upload-only while connected to MCUboot's serial recovery, which "
                + "writes the slot directly, then reset the device"
        default:
            return "every upgrade mode is supported"
        }
    }
}
