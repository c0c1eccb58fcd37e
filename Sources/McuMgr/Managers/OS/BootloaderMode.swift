/// MCUboot's mode (`enum mcuboot_mode`), as OS command 8 reports it for `query: "mode"`.
public enum BootloaderMode: Int, Codable, Sendable, CaseIterable, CustomStringConvertible {
    /// The mode is not known.
    case unknown = -1
    /// One application slot, no swap.
    case singleApplication = 0
    /// Swap using a scratch area.
    case swapUsingScratch = 1
    /// Overwrite the primary slot (upgrades only, no revert).
    case overwriteOnly = 2
    /// Swap using move ("swap without scratch").
    case swapUsingMove = 3
    /// Direct execute-in-place, without revert.
    case directXIP = 4
    /// Direct execute-in-place, with revert.
    case directXIPWithRevert = 5
    /// Load into RAM.
    case ramLoad = 6
    /// Firmware loader (newer MCUboot).
    case firmwareLoader = 7
    /// Single-slot RAM load (newer MCUboot).
    case singleSlotRAMLoad = 8
    /// Swap using offset (newer MCUboot).
    case swapUsingOffset = 9

    /// Whether an uploaded image runs on test first and reverts unless confirmed.
    public var supportsRevert: Bool {
        switch self {
        case .swapUsingScratch, .swapUsingMove, .swapUsingOffset, .directXIPWithRevert: return true
        default: return false
        }
    }

    /// A short name for people.
    public var description: String {
        switch self {
        case .unknown: return "unknown"
        case .singleApplication: return "single application slot"
        case .swapUsingScratch: return "swap using scratch"
        case .overwriteOnly: return "overwrite only"
        case .swapUsingMove: return "swap using move"
        case .directXIP: return "direct XIP"
        case .directXIPWithRevert: return "direct XIP with revert"
        case .ramLoad: return "RAM load"
        case .firmwareLoader: return "firmware loader"
        case .singleSlotRAMLoad: return "single-slot RAM load"
        case .swapUsingOffset: return "swap using offset"
        }
    }
}
