/// One updatable image: the primary slot (0) it runs from and the secondary slot (1) uploads land in.
struct ImagePair: Sendable {
    /// Slot 0 (primary) and slot 1 (secondary).
    var slots: [FlashSlot]

    init(slotSize: Int) {
        slots = [FlashSlot(size: slotSize), FlashSlot(size: slotSize)]
    }

    /// The slot the image runs from: always the primary in swap modes.
    static let activeSlot = 0

    /// The swap MCUboot would perform at the next boot.
    var swapType: SwapType { SwapType.decide(primary: slots[0].trailer, secondary: slots[1].trailer) }

    /// Zephyr's `img_mgmt_get_next_boot_slot()`: the slot that boots next, and how.
    var nextBoot: (slot: Int, kind: NextBootKind) {
        switch swapType {
        case .none: return (Self.activeSlot, .normal)
        case .permanent: return (1, .normal)
        case .revert: return (1, .revert)
        case .test: return (1, .test)
        }
    }

    /// The flags `image list` reports for each slot (`img_mgmt_state_read()`).
    func reportedFlags(slot: Int) -> SlotFlags {
        let next = nextBoot
        if slot == Self.activeSlot {
            return SlotFlags(pending: false, confirmed: next.kind != .revert, active: true, permanent: false)
        }
        guard next.slot != Self.activeSlot else { return SlotFlags() }
        switch next.kind {
        case .normal: return SlotFlags(pending: true, confirmed: false, active: false, permanent: true)
        case .revert: return SlotFlags(pending: false, confirmed: true, active: false, permanent: false)
        case .test: return SlotFlags(pending: true, confirmed: false, active: false, permanent: false)
        }
    }

    /// Zephyr's `img_mgmt_slot_in_use()`: a slot that may be neither erased nor uploaded to.
    func isInUse(slot: Int) -> Bool {
        let next = nextBoot
        if slot == next.slot && next.kind == .revert { return true }
        if (slot == next.slot && next.kind == .test) || (next.slot != Self.activeSlot && next.kind == .normal) {
            return true
        }
        return slot == Self.activeSlot
    }
}
