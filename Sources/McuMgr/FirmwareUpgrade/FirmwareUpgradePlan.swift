import McuBoot

/// What an upgrade still has to do, derived from the device's whole image table and its
/// bootloader mode alone.
///
/// Images are matched by hash, never by size or version. After every reset the table is read
/// again and a new plan made, so an interrupted or repeated upgrade picks up where the device
/// stands. The slot an image is not running from (its "other" slot: the secondary in swap modes,
/// the inactive slot in direct-XIP) may hold another image; the plan frees it as MCUboot and
/// Zephyr's image manager require (smp-reference §3.2, §6.4, §6.5):
/// - a foreign image marked for the next boot (pending, test or permanent) holds the slot: it is
///   erased, or, when the device refuses the erase, the device is reset first (MCUboot then boots
///   it, and the next plan sees where that leaves the device);
/// - a confirmed image in the other slot means the running image is on test (MCUboot's revert
///   state) and the slot is held for the revert: the device is reset first, so MCUboot reverts to
///   the confirmed image and the slot becomes free, keeping the last confirmed image as the
///   fallback of the new upgrade (rather than confirming an image nobody validated);
/// - a foreign image without flags is simply overwritten by the upload.
///
/// ``FirmwareUpgradeManager/preview(images:configuration:)`` returns the first plan without acting on it.
public struct FirmwareUpgradePlan: Equatable, Sendable {
    /// Where one image of the upgrade stands on the device.
    enum Standing: Equatable, Sendable {
        /// Not on the device.
        case absent
        /// In a slot that is not running; `pending` when marked for the next boot, `confirmed`
        /// when it is the image a revert returns to.
        case stored(pending: Bool, permanent: Bool, confirmed: Bool)
        /// Running; `confirmed` when it will stay after the next reset.
        case running(confirmed: Bool)
    }

    /// One slot of one image, as the erase command addresses it.
    public struct SlotAddress: Equatable, Hashable, Sendable {
        /// The image number.
        public internal(set) var image: Int
        /// The slot within the image (0 or 1).
        public internal(set) var slot: Int
        /// The absolute slot number the erase command takes (`2 × image + slot`).
        public var absolute: Int { image * 2 + slot }
    }

    /// Slots holding a foreign image marked for the next boot, to erase before uploading.
    public internal(set) var erases: [SlotAddress] = []
    /// Why the device must be reset before anything else (nil: no such reset).
    public internal(set) var resetFirst: String?
    /// Images to upload.
    public internal(set) var uploads: [Int] = []
    /// Images to mark for a test boot.
    public internal(set) var tests: [Int] = []
    /// Images to mark permanent before the reset.
    public internal(set) var permanents: [Int] = []
    /// Running images to confirm now.
    public internal(set) var confirms: [Int] = []
    /// Whether a reset is needed to boot the new images.
    public internal(set) var needsReset = false

    /// Whether nothing is left to do.
    public var isDone: Bool {
        erases.isEmpty && resetFirst == nil && uploads.isEmpty && tests.isEmpty && permanents.isEmpty
            && confirms.isEmpty && !needsReset
    }

    /// Where an image with `hash` stands among the device's slots for image `index`.
    static func standing(of hash: [UInt8], index: Int, in slots: [ImageSlot]) -> Standing {
        let mine = slots.filter { $0.image == index && $0.hash == hash }
        if let running = mine.first(where: \.active) {
            return .running(confirmed: running.confirmed)
        }
        if let stored = mine.first {
            return .stored(pending: stored.pending, permanent: stored.permanent, confirmed: stored.confirmed)
        }
        return .absent
    }

    /// Plans the upgrade of `images` on a device whose slots are `slots`.
    ///
    /// - Parameters:
    ///   - bootloader: the bootloader's mode (`nil` or `.unknown`: a swap mode, as most devices run).
    ///   - refusedErases: images whose foreign pending image the device refused to erase.
    /// - Throws: `unsupportedBootloaderMode` when the bootloader cannot do `mode`, and
    ///   `notNewerThanRunning` when a direct-XIP bootloader would never boot the image.
    init(
        images: [FirmwareUpgradeImage], slots: [ImageSlot], mode: FirmwareUpgradeMode,
        bootloader: BootloaderMode? = nil, refusedErases: Set<Int> = []
    ) throws(PlanRefusal) {
        let policy = BootPolicy(bootloader)
        if !policy.supports(mode), let bootloader {
            throw PlanRefusal(reason: .unsupportedBootloaderMode(bootloader, mode))
        }
        for image in images {
            let index = image.index
            switch Self.standing(of: image.image.hash, index: index, in: slots) {
            case .running(let confirmed):
                if !confirmed && (mode == .testAndConfirm || mode == .confirmOnly) { confirms.append(index) }
            case .stored(let pending, _, let confirmed):
                try planStored(
                    image, pending: pending, confirmed: confirmed, slots: slots, mode: mode, policy: policy,
                    bootloader: bootloader)
            case .absent:
                try planAbsent(
                    image, slots: slots, mode: mode, policy: policy, bootloader: bootloader,
                    eraseRefused: refusedErases.contains(index))
            }
        }
        if let reason = resetFirst {
            // Nothing else until the device has rebooted and the table is read again.
            self = FirmwareUpgradePlan()
            resetFirst = reason
        }
    }

    private init() {}

    /// The image is in the slot it does not run from.
    private mutating func planStored(
        _ image: FirmwareUpgradeImage, pending: Bool, confirmed: Bool, slots: [ImageSlot],
        mode: FirmwareUpgradeMode, policy: BootPolicy, bootloader: BootloaderMode?
    ) throws(PlanRefusal) {
        let index = image.index
        guard mode != .uploadOnly else { return }
        if confirmed {
            // The running image is on test and this one is what a reset reverts to.
            needsReset = true
            return
        }
        if pending {
            // Marked for the next boot already (for test, or permanently, which outdoes a test).
            needsReset = true
            return
        }
        // Direct-XIP reports the other slot pending only when it would boot next; marking an image
        // that is not newer than the running one would not make it boot.
        if policy.bootsHighestVersion, let running = slots.first(where: { $0.image == index && $0.active }),
            !isNewer(image, than: running)
        {
            throw notNewer(image, slots: slots, bootloader: bootloader)
        }
        guard policy.statesExist else {
            // Without revert a newer image is always pending: nothing else can make it boot.
            throw notNewer(image, slots: slots, bootloader: bootloader)
        }
        if mode == .confirmOnly { permanents.append(index) } else { tests.append(index) }
        needsReset = true
    }

    /// The image is not on the device: free its other slot if needed, then upload it.
    private mutating func planAbsent(
        _ image: FirmwareUpgradeImage, slots: [ImageSlot], mode: FirmwareUpgradeMode, policy: BootPolicy,
        bootloader: BootloaderMode?, eraseRefused: Bool
    ) throws(PlanRefusal) {
        let index = image.index
        let running = slots.first { $0.image == index && $0.active }
        if policy.statesExist, let other = slots.first(where: { $0.image == index && !$0.active }) {
            if other.confirmed, running.map({ !$0.confirmed }) ?? true {
                resetFirst = "image \(index) runs on test and slot \(other.slot) holds the confirmed image it reverts to"
            } else if other.pending {
                if eraseRefused {
                    resetFirst = "the device refused to erase the image marked for the next boot in image \(index) slot \(other.slot)"
                } else {
                    erases.append(SlotAddress(image: index, slot: other.slot))
                }
            }
        }
        if policy.bootsHighestVersion && mode != .uploadOnly, let running, !isNewer(image, than: running) {
            throw notNewer(image, slots: slots, bootloader: bootloader)
        }
        uploads.append(index)
        guard mode != .uploadOnly else { return }
        if policy.statesExist {
            if mode == .confirmOnly { permanents.append(index) } else { tests.append(index) }
        }
        needsReset = true
    }

    private func isNewer(_ image: FirmwareUpgradeImage, than running: ImageSlot) -> Bool {
        guard let version = McuBootVersion(string: running.version) else { return true }
        return image.image.version > version
    }

    private func notNewer(_ image: FirmwareUpgradeImage, slots: [ImageSlot], bootloader: BootloaderMode?) -> PlanRefusal {
        let running = slots.first { $0.image == image.index && $0.active }
        return PlanRefusal(reason: .notNewerThanRunning(
            image: image.index, running: running?.version ?? "unknown", new: image.image.version.deviceString,
            bootloader: bootloader ?? .unknown))
    }
}

/// Why no plan can carry out an upgrade; the runner reports it with its state and slot table.
struct PlanRefusal: Error, Sendable {
    /// The upgrade error's reason.
    let reason: FirmwareUpgradeError.Reason
}
