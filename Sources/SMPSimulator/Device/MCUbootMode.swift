/// The mode the simulated device's MCUboot was built for (`enum mcuboot_mode`, smp-reference §3.1).
///
/// It decides what `image list` reports, which slot an upload lands in, what test, confirm and
/// erase do, and which slot runs after a reset.
///
/// The numbers repeat McuMgr's `BootloaderMode` on purpose: the simulator is the reference the
/// client is tested against and depends on no client target, so each side transcribes MCUboot's
/// table on its own and a wrong number on one side shows up in the tests instead of in both.
public enum MCUbootMode: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Reported as −1; behaves as swap.
    case unknown = -1
    /// One application slot: the running application cannot be replaced over SMP.
    case singleApplication = 0
    /// Swap using a scratch area: test, revert unless confirmed.
    case swapUsingScratch = 1
    /// Overwrite the primary slot: every upgrade is permanent, no revert.
    case overwriteOnly = 2
    /// Swap using move ("swap without scratch"): test, revert unless confirmed.
    case swapUsingMove = 3
    /// Direct execute-in-place: the slot with the highest version runs; no test or confirm.
    case directXIP = 4
    /// Direct execute-in-place with revert: a slot runs once when marked for test, stays when confirmed.
    case directXIPWithRevert = 5
    /// The highest version is loaded into RAM at every boot; trailers are ignored.
    case ramLoad = 6
    /// A separate firmware loader replaces the application; one application slot.
    case firmwareLoader = 7
    /// RAM load from a single slot.
    case singleSlotRAMLoad = 8
    /// Swap using offset: test, revert unless confirmed.
    case swapUsingOffset = 9

    /// How the slots of an image behave in this mode.
    enum Strategy: Sendable, Equatable {
        /// Swap the secondary into the primary (MCUboot's swap table, §6.4).
        case swap
        /// Copy the secondary over the primary; no revert.
        case overwrite
        /// Run the slot with the highest version in place; `revert` reads the trailers as well.
        case directXIP(revert: Bool)
        /// One slot per image; `firmwareLoader` reports the running slot as active only.
        case singleSlot(firmwareLoader: Bool)
    }

    var strategy: Strategy {
        switch self {
        case .unknown, .swapUsingScratch, .swapUsingMove, .swapUsingOffset: return .swap
        case .overwriteOnly: return .overwrite
        // RAM load picks the highest version and ignores trailers, as direct-XIP without revert does.
        case .directXIP, .ramLoad: return .directXIP(revert: false)
        case .directXIPWithRevert: return .directXIP(revert: true)
        case .singleApplication, .singleSlotRAMLoad: return .singleSlot(firmwareLoader: false)
        case .firmwareLoader: return .singleSlot(firmwareLoader: true)
        }
    }

    /// Slots per image: one in the single-slot modes, two otherwise.
    public var slotsPerImage: Int {
        if case .singleSlot = strategy { return 1 }
        return 2
    }

    /// The short name `mcumgr-sim --mode` takes, e.g. `swap-move` or `direct-xip-revert`.
    public var name: String {
        switch self {
        case .unknown: return "unknown"
        case .singleApplication: return "single-app"
        case .swapUsingScratch: return "swap-scratch"
        case .overwriteOnly: return "overwrite"
        case .swapUsingMove: return "swap-move"
        case .directXIP: return "direct-xip"
        case .directXIPWithRevert: return "direct-xip-revert"
        case .ramLoad: return "ram-load"
        case .firmwareLoader: return "firmware-loader"
        case .singleSlotRAMLoad: return "single-slot-ram-load"
        case .swapUsingOffset: return "swap-offset"
        }
    }

    /// Reads a name (``name``) or the mode number; nil for anything else.
    public init?(name text: String) {
        if let number = Int(text) {
            self.init(rawValue: number)
            return
        }
        guard let mode = Self.allCases.first(where: { $0.name == text }) else { return nil }
        self = mode
    }

    /// The name and number, e.g. `direct-xip (4)`.
    public var description: String { "\(name) (\(rawValue))" }
}

/// How an image written by ``SimulatedDevice/install(_:image:slot:mark:)`` is marked in the
/// trailer of its slot, as `image test`, `image confirm` or a factory programmer would leave it.
public enum SlotMark: Sendable, Hashable {
    /// No trailer: an image written but not marked.
    case none
    /// Marked for one test boot.
    case test
    /// Marked to run permanently from the next boot.
    case permanent
    /// Confirmed. In a slot that is not running this is the image the bootloader falls back to:
    /// the running image is then on test, booted once and not confirmed (MCUboot's revert state).
    case confirmed
}
