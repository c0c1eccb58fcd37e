extension ImagePair {
    /// What MCUboot did with this image pair at boot.
    enum BootAction: Sendable, Equatable, CustomStringConvertible {
        /// Booted the running slot as it was.
        case none
        /// Swapped the secondary in for one test boot.
        case swappedForTest
        /// Swapped the secondary in permanently.
        case swappedPermanently
        /// Swapped the previous image back because the test image was not confirmed.
        case reverted
        /// Copied the secondary over the primary (overwrite-only) and erased the secondary.
        case overwritten
        /// Refused the secondary image (bad hash, or a downgrade with downgrade prevention) and erased it.
        case rejected(String)
        /// Direct-XIP or RAM load: runs the other slot now.
        case selected(Int)
        /// Direct-XIP with revert: erased slots not marked for test or booted unconfirmed, then ran `selected`.
        case erasedAndSelected(erased: [Int], selected: Int?)
        /// No slot holds a valid image.
        case noBootableImage

        var description: String {
            switch self {
            case .none: return "no swap"
            case .swappedForTest: return "swapped for test"
            case .swappedPermanently: return "swapped permanently"
            case .reverted: return "reverted"
            case .overwritten: return "overwritten"
            case .rejected(let why): return "rejected (\(why))"
            case .selected(let slot): return "slot \(slot) selected"
            case .erasedAndSelected(let erased, let slot):
                let next = slot.map { "slot \($0) selected" } ?? "nothing left to boot"
                return "slot \(erased.map(String.init).joined(separator: ", ")) erased (unconfirmed or not marked), \(next)"
            case .noBootableImage: return "no bootable image"
            }
        }
    }

    /// Runs MCUboot's decision for this pair at boot and carries it out.
    ///
    /// - Parameter preventsDowngrade: MCUboot's `MCUBOOT_DOWNGRADE_PREVENTION` (swap and overwrite modes).
    mutating func boot(preventsDowngrade: Bool) -> BootAction {
        switch mode.strategy {
        case .swap: return bootSwap(preventsDowngrade: preventsDowngrade)
        case .overwrite: return bootOverwrite(preventsDowngrade: preventsDowngrade)
        case .directXIP(let revert): return bootHighestVersion(revert: revert)
        case .singleSlot: return .none
        }
    }

    private mutating func bootSwap(preventsDowngrade: Bool) -> BootAction {
        switch swapType {
        case .none:
            return .none
        case .test, .permanent:
            let permanent = swapType == .permanent
            if let refusal = refusalOfSecondary(preventsDowngrade: preventsDowngrade) { return refusal }
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

    /// Overwrite-only: a marked secondary (test or permanent alike) replaces the primary for good.
    private mutating func bootOverwrite(preventsDowngrade: Bool) -> BootAction {
        switch swapType {
        case .none, .revert:
            return .none
        case .test, .permanent:
            if let refusal = refusalOfSecondary(preventsDowngrade: preventsDowngrade) { return refusal }
            slots[0].replace(with: slots[1].contents)
            slots[0].trailer = .erased
            slots[1].erase()
            return .overwritten
        }
    }

    /// Erases a secondary image that fails validation or would be a prevented downgrade.
    private mutating func refusalOfSecondary(preventsDowngrade: Bool) -> BootAction? {
        guard let info = slots[1].imageInfo, info.hashMatches(slots[1].contents) else {
            slots[1].erase()
            return .rejected("secondary image failed validation")
        }
        if preventsDowngrade, let running = slots[0].imageInfo, info.version < running.version {
            slots[1].erase()
            return .rejected("downgrade from \(running.version) to \(info.version) prevented")
        }
        return nil
    }

    private mutating func swapContents() {
        let primary = slots[0].contents
        slots[0].replace(with: slots[1].contents)
        slots[1].replace(with: primary)
    }

    /// Writes the trailer a test, a confirm or a factory programmer leaves for `mark` (see ``SlotMark``).
    mutating func mark(slot: Int, _ mark: SlotMark) {
        switch mark {
        case .none:
            slots[slot].trailer = .erased
        case .test:
            slots[slot].trailer = BootTrailer(magic: true, imageOK: false, copyDone: false)
        case .permanent:
            slots[slot].trailer = BootTrailer(magic: true, imageOK: true, copyDone: false)
        case .confirmed:
            slots[slot].trailer = BootTrailer(magic: true, imageOK: true, copyDone: true)
            guard slot != activeSlot, slots.count == 2 else { return }
            // The running image is on test: booted once and not confirmed.
            slots[activeSlot].trailer = BootTrailer(magic: true, imageOK: false, copyDone: true)
            // In swap modes the old image's trailer is erased by the swap; the revert comes from the primary's.
            if mode.strategy == .swap || mode.strategy == .overwrite { slots[slot].trailer = .erased }
        }
    }
}
