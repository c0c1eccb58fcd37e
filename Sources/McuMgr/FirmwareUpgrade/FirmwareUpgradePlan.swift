/// What an upgrade still has to do, derived from the device's image table alone.
///
/// Images are matched by hash, never by size or version. After a reset the table is read again
/// and a new plan made, so an interrupted or repeated upgrade picks up where the device stands.
struct FirmwareUpgradePlan: Equatable, Sendable {
    /// Where one image of the upgrade stands on the device.
    enum Standing: Equatable, Sendable {
        /// Not on the device.
        case absent
        /// In a slot that is not running; `pending` when marked for the next boot.
        case stored(pending: Bool, permanent: Bool)
        /// Running; `confirmed` when it will stay after the next reset.
        case running(confirmed: Bool)
    }

    /// Images to upload.
    var uploads: [Int] = []
    /// Images to mark for a test boot.
    var tests: [Int] = []
    /// Images to mark permanent before the reset.
    var permanents: [Int] = []
    /// Running images to confirm now.
    var confirms: [Int] = []
    /// Whether a reset is needed to boot the new images.
    var needsReset = false

    /// Whether nothing is left to do.
    var isDone: Bool { uploads.isEmpty && tests.isEmpty && permanents.isEmpty && confirms.isEmpty && !needsReset }

    /// Where an image with `hash` stands among the device's slots for image `index`.
    static func standing(of hash: [UInt8], index: Int, in slots: [ImageSlot]) -> Standing {
        let mine = slots.filter { $0.image == index && $0.hash == hash }
        if let running = mine.first(where: \.active) {
            return .running(confirmed: running.confirmed)
        }
        if let stored = mine.first {
            return .stored(pending: stored.pending, permanent: stored.permanent)
        }
        return .absent
    }

    /// Plans the upgrade of `images` on a device whose slots are `slots`.
    init(images: [FirmwareUpgradeImage], slots: [ImageSlot], mode: FirmwareUpgradeMode) {
        for image in images {
            let index = image.index
            switch (Self.standing(of: image.image.hash, index: index, in: slots), mode) {
            case (.running(confirmed: true), _), (.running, .testOnly), (.running, .uploadOnly), (.stored, .uploadOnly):
                break
            case (.running(confirmed: false), _):
                confirms.append(index)
            case (.absent, .uploadOnly):
                uploads.append(index)
            case (.absent, .confirmOnly):
                uploads.append(index)
                permanents.append(index)
                needsReset = true
            case (.absent, _):
                uploads.append(index)
                tests.append(index)
                needsReset = true
            case (.stored(pending: false, _), .confirmOnly):
                permanents.append(index)
                needsReset = true
            case (.stored(pending: false, _), _):
                tests.append(index)
                needsReset = true
            case (.stored(pending: true, _), _):
                needsReset = true
            }
        }
    }
}
