extension ImagePair {
    /// The state one slot's trailer gives it in direct-XIP with revert (Zephyr's `read_directxip_state()`).
    enum DirectXIPSlotState: Equatable {
        /// No trailer magic.
        case unset
        /// Marked for test, not booted yet.
        case once
        /// Booted for test and not confirmed: the next boot erases it.
        case revert
        /// Confirmed or marked permanent.
        case forever

        init(_ trailer: BootTrailer) {
            if !trailer.magic {
                self = .unset
            } else if trailer.imageOK {
                self = .forever
            } else {
                self = trailer.copyDone ? .revert : .once
            }
        }
    }

    /// Whether `candidate` wins MCUboot's highest-version choice over `incumbent`: a higher
    /// version, or the same version in a lower slot (`find_slot_with_highest_version()` looks at
    /// slot 0 first and keeps it on a tie).
    func prefers(_ candidate: Int, over incumbent: Int) -> Bool {
        guard let new = slots[candidate].imageInfo?.version, let old = slots[incumbent].imageInfo?.version else {
            return false
        }
        return new > old || (new == old && candidate < incumbent)
    }

    /// Direct-XIP without revert: the other slot boots next when its image wins on version.
    var bootsOtherByVersion: Bool {
        slots.count == 2 && slots[activeSlot].imageInfo != nil && prefers(otherSlot, over: activeSlot)
    }

    /// Zephyr's `img_mgmt_get_next_boot_slot()` for direct-XIP with revert.
    var directXIPRevertNextBoot: (slot: Int, kind: NextBootKind) {
        let active = DirectXIPSlotState(slots[activeSlot].trailer)
        // No image in the other slot (or none readable here): the running slot boots again.
        guard slots[activeSlot].imageInfo != nil, slots[otherSlot].imageInfo != nil else { return (activeSlot, .normal) }
        let other = DirectXIPSlotState(slots[otherSlot].trailer)
        if active == .revert { return (otherSlot, .revert) }
        if other == .unset { return (activeSlot, active == .once ? .test : .normal) }
        if prefers(otherSlot, over: activeSlot) {
            if other == .forever { return (otherSlot, .normal) }
            if other == .once { return (otherSlot, .test) }
        }
        return (activeSlot, .normal)
    }

    /// MCUboot's direct-XIP (and RAM-load) boot: the valid image with the highest version runs.
    /// With revert, a chosen slot without trailer magic, or one booted for test and never
    /// confirmed, is erased and the choice made again (`boot_select_or_erase()`); a slot booted
    /// for the first time gets `copy_done`.
    mutating func bootHighestVersion(revert: Bool) -> BootAction {
        var available = slots.indices.filter { slot in
            slots[slot].imageInfo.map { $0.hashMatches(slots[slot].contents) } ?? false
        }
        var erased: [Int] = []
        while let candidate = available.reduce(nil as Int?, { best, slot in
            guard let best else { return slot }
            return prefers(slot, over: best) ? slot : best
        }) {
            if revert {
                let trailer = slots[candidate].trailer
                if !trailer.magic || (trailer.copyDone && !trailer.imageOK) {
                    slots[candidate].erase()
                    erased.append(candidate)
                    available.removeAll { $0 == candidate }
                    continue
                }
                slots[candidate].trailer.copyDone = true
            }
            let previous = activeSlot
            activeSlot = candidate
            if !erased.isEmpty { return .erasedAndSelected(erased: erased, selected: candidate) }
            return candidate == previous ? .none : .selected(candidate)
        }
        return erased.isEmpty ? .noBootableImage : .erasedAndSelected(erased: erased, selected: nil)
    }
}
