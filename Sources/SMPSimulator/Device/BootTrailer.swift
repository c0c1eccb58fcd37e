/// The MCUboot trailer at the end of a slot, reduced to the three fields the swap decision reads
/// (smp-reference §6.4): a flag is "set" when it holds 0x01 and "unset" when erased (0xff).
struct BootTrailer: Sendable, Hashable {
    /// The 16-byte trailer magic is written.
    var magic = false
    /// `image_ok` is 0x01.
    var imageOK = false
    /// `copy_done` is 0x01.
    var copyDone = false

    /// An erased trailer.
    static let erased = BootTrailer()
}

/// MCUboot's swap types (`bootutil_public.h`), as the device derives them from the trailers.
public enum SwapType: String, Sendable, Hashable {
    /// Nothing scheduled.
    case none
    /// The secondary slot is marked for one test boot.
    case test
    /// The secondary slot is marked to become permanent.
    case permanent
    /// The running image was booted for test and is not confirmed: the next boot reverts it.
    case revert

    /// The decision table of `boot_swap_tables` (rows II, III, IV; the swap-using-offset row I is not modelled).
    static func decide(primary: BootTrailer, secondary: BootTrailer) -> SwapType {
        if secondary.magic && !secondary.imageOK { return .test }
        if secondary.magic && secondary.imageOK { return .permanent }
        if primary.magic && !primary.imageOK && primary.copyDone { return .revert }
        return .none
    }
}
