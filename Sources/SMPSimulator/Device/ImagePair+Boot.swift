extension ImagePair {
    /// What MCUboot did with this image pair at boot.
    enum BootAction: Sendable, Equatable, CustomStringConvertible {
        /// Booted the primary slot as it was.
        case none
        /// Swapped the secondary in for one test boot.
        case swappedForTest
        /// Swapped the secondary in permanently.
        case swappedPermanently
        /// Swapped the previous image back because the test image was not confirmed.
        case reverted
        /// Refused the secondary image (bad hash, or a downgrade with downgrade prevention) and erased it.
        case rejected(String)

        var description: String {
            switch self {
            case .none: return "no swap"
            case .swappedForTest: return "swapped for test"
            case .swappedPermanently: return "swapped permanently"
            case .reverted: return "reverted"
            case .rejected(let why): return "rejected (\(why))"
            }
        }
    }

    /// Runs MCUboot's swap decision for this pair at boot and performs the swap.
    ///
    /// - Parameter preventsDowngrade: MCUboot's `MCUBOOT_DOWNGRADE_PREVENTION`.
    mutating func boot(preventsDowngrade: Bool) -> BootAction {
        switch swapType {
        case .none:
            return .none
        case .test, .permanent:
            let permanent = swapType == .permanent
            guard let info = slots[1].imageInfo, info.hashMatches(slots[1].contents) else {
                slots[1].erase()
                return .rejected("secondary image failed validation")
            }
            if preventsDowngrade, let running = slots[0].imageInfo, info.version < running.version {
                slots[1].erase()
                return .rejected("downgrade from \(running.version) to \(info.version) prevented")
            }
            swapContents()
            slots[0].trailer = BootTrailer(magic: true, imageOK: permanent, copyDone: true)
            slots[1].trailer = .erased
            return permanent ? .swappedPermanently : .swappedForTest
        case .revert:
            swapContents()
            slots[0].trailer = BootTrailer(magic: true, imageOK: true, copyDone: true)
            slots[1].trailer = .erased
            return .reverted
        }
    }

    private mutating func swapContents() {
        let primary = slots[0].contents
        slots[0].replace(with: slots[1].contents)
        slots[1].replace(with: primary)
    }
}
