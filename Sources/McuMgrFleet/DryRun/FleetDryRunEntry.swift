import McuMgr
import McuMgrConnection
import SMP

/// What the upgrade would do on one device.
public enum FleetPlannedAction: Sendable {
    /// Send images (after freeing their other slot, when `steps` say so), then test or mark, reset and confirm as the mode does.
    case upload(images: [Int], bytes: Int)
    /// The images are on the device already: mark them, reset and confirm as the mode does.
    case test(images: [Int])
    /// The images run but are not confirmed: confirm them.
    case confirm(images: [Int])
    /// The device runs the images as wanted: nothing to do.
    case nothing
    /// The upgrade would refuse this device (a downgrade, an image that does not fit — a missing
    /// image number, too large, an unmet dependency —, a rejected signature, a bootloader mode that
    /// cannot do the upgrade, an image a direct-XIP bootloader would never boot).
    case refuse(FirmwareUpgradeError)
    /// The device could not be read (unreachable, or an error answer).
    case unreadable(FleetFailure)

    /// `upload`, `test`, `confirm`, `nothing`, `refuse` or `unreadable`: the dry run's totals count these.
    public var category: String {
        switch self {
        case .upload: return "upload"
        case .test: return "test"
        case .confirm: return "confirm"
        case .nothing: return "nothing"
        case .refuse: return "refuse"
        case .unreadable: return "unreadable"
        }
    }
}

/// One device of a dry run: what it runs, what the upgrade would do, step by step.
public struct FleetDryRunEntry: Sendable {
    /// The device.
    public let device: FleetDevice
    /// What the upgrade would do.
    public let action: FleetPlannedAction
    /// The steps, in order, e.g. `upload image 0 (262696 bytes)`, `test image 0`, `reset`, `confirm image 0`.
    public let steps: [String]
    /// The running version of each image the upgrade names, by image number.
    public let running: [Int: String]
    /// The new version of each image, by image number.
    public let new: [Int: String]
    /// The bootloader's mode, when known.
    public let bootloader: BootloaderMode?

    init(device: FleetDevice, action: FleetPlannedAction, running: [Int: String], steps: [String] = [], new: [Int: String] = [:], bootloader: BootloaderMode? = nil) {
        self.device = device
        self.action = action
        self.running = running
        self.steps = steps
        self.new = new
        self.bootloader = bootloader
    }

    /// The entry for a device the planner planned.
    init(device: FleetDevice, preview: FirmwareUpgradePreview, images: [FirmwareUpgradeImage], mode: FirmwareUpgradeMode) {
        let plan = preview.plan
        var steps: [String] = []
        if let reason = plan.resetFirst { steps.append("reset first (\(reason)), then plan again") }
        for address in plan.erases { steps.append("erase image \(address.image) slot \(address.slot)") }
        var bytes = 0
        for index in plan.uploads {
            let size = images.first { $0.index == index }?.image.bytes.count ?? 0
            bytes += size
            steps.append("upload image \(index) (\(size) bytes)")
        }
        for index in plan.tests { steps.append("test image \(index)") }
        for index in plan.permanents { steps.append("mark image \(index) permanent") }
        for index in plan.confirms { steps.append("confirm image \(index)") }
        if plan.needsReset { steps.append("reset") }
        if plan.needsReset, mode == .testAndConfirm {
            for index in plan.tests { steps.append("confirm image \(index)") }
        }
        let action: FleetPlannedAction
        if plan.isDone {
            action = .nothing
        } else if !plan.uploads.isEmpty || plan.resetFirst != nil || !plan.erases.isEmpty {
            action = .upload(images: plan.uploads, bytes: bytes)
        } else if !plan.tests.isEmpty || !plan.permanents.isEmpty || plan.needsReset {
            action = .test(images: plan.tests + plan.permanents)
        } else {
            action = .confirm(images: plan.confirms)
        }
        self.init(
            device: device, action: action, running: Self.running(preview.slots, images: images), steps: steps,
            new: Self.newVersions(images), bootloader: preview.bootloader)
    }

    /// The entry for a device the planner refused, or that could not be read.
    init(device: FleetDevice, error: FirmwareUpgradeError) {
        let running = error.lastKnownSlots.map { slots in
            Dictionary(slots.filter(\.active).map { ($0.image, $0.version) }, uniquingKeysWith: { first, _ in first })
        } ?? [:]
        switch error.reason {
        case .downgradeRefused, .doesNotFit, .signatureRejected, .unsupportedBootloaderMode, .notNewerThanRunning, .invalidConfiguration:
            self.init(device: device, action: .refuse(error), running: running)
        default:
            let failure = FleetFailure(phase: .upgrade(error.state), reason: .upgrade(error), reachedDevice: error.state != .requestMcuMgrParameters)
            self.init(device: device, action: .unreadable(failure), running: running)
        }
    }

    static func running(_ slots: [ImageSlot], images: [FirmwareUpgradeImage]) -> [Int: String] {
        var versions: [Int: String] = [:]
        for image in images {
            if let slot = slots.first(where: { $0.image == image.index && $0.active }) { versions[image.index] = slot.version }
        }
        return versions
    }

    static func newVersions(_ images: [FirmwareUpgradeImage]) -> [Int: String] {
        Dictionary(images.map { ($0.index, $0.image.version.deviceString) }, uniquingKeysWith: { first, _ in first })
    }

    /// Why the upgrade would refuse or could not read the device; nil otherwise.
    public var problem: String? {
        switch action {
        case .refuse(let error): return error.description
        case .unreadable(let failure): return failure.description
        default: return nil
        }
    }
}
