/// One updatable image: its slots (two, or one in the single-slot modes) and the slot it runs from.
struct ImagePair: Sendable {
    /// Slot 0 (primary) and slot 1 (secondary).
    var slots: [FlashSlot]
    /// The bootloader's mode.
    let mode: MCUbootMode
    /// The slot the image runs from: always 0 in swap modes; the slot MCUboot chose in direct-XIP.
    var activeSlot = 0

    init(slotSize: Int, mode: MCUbootMode) {
        self.mode = mode
        slots = (0..<mode.slotsPerImage).map { _ in FlashSlot(size: slotSize) }
    }

    /// The slot that is not running (meaningful with two slots).
    var otherSlot: Int { 1 - activeSlot }

    /// The swap MCUboot would perform at the next boot, read from the two trailers (§6.4).
    var swapType: SwapType {
        guard slots.count == 2 else { return .none }
        return SwapType.decide(primary: slots[0].trailer, secondary: slots[1].trailer)
    }

    /// Zephyr's `img_mgmt_get_next_boot_slot()`: the slot that boots next, and how.
    var nextBoot: (slot: Int, kind: NextBootKind) {
        switch mode.strategy {
        case .swap, .overwrite:
            switch swapType {
            case .none: return (activeSlot, .normal)
            case .permanent: return (otherSlot, .normal)
            case .revert: return (otherSlot, .revert)
            case .test: return (otherSlot, .test)
            }
        case .directXIP(revert: false):
            return (bootsOtherByVersion ? otherSlot : activeSlot, .normal)
        case .directXIP(revert: true):
            return directXIPRevertNextBoot
        case .singleSlot:
            return (activeSlot, .normal)
        }
    }

    /// The flags `image list` reports for each slot (`img_mgmt_state_read()`).
    func reportedFlags(slot: Int) -> SlotFlags {
        if case .singleSlot(firmwareLoader: true) = mode.strategy {
            // Firmware-loader mode knows no pending or confirmed slots, only the running one.
            return SlotFlags(active: slot == activeSlot)
        }
        let next = nextBoot
        if slot == activeSlot {
            return SlotFlags(pending: false, confirmed: next.kind != .revert, active: true, permanent: false)
        }
        guard next.slot != activeSlot else { return SlotFlags() }
        switch next.kind {
        case .normal: return SlotFlags(pending: true, confirmed: false, active: false, permanent: true)
        case .revert: return SlotFlags(pending: false, confirmed: true, active: false, permanent: false)
        case .test: return SlotFlags(pending: true, confirmed: false, active: false, permanent: false)
        }
    }

    /// Zephyr's `img_mgmt_slot_in_use()`: a slot that may be neither erased nor uploaded to.
    ///
    /// - Parameter allowsErasingPending: `CONFIG_MCUMGR_GRP_IMG_ALLOW_ERASE_PENDING`.
    func isInUse(slot: Int, allowsErasingPending: Bool) -> Bool {
        switch mode.strategy {
        case .directXIP(revert: false):
            // Direct-XIP without revert compiles the next-boot checks out: only the running slot is used.
            return slot == activeSlot
        case .singleSlot:
            return true
        case .swap, .overwrite, .directXIP(revert: true):
            let next = nextBoot
            if slot == next.slot && next.kind == .revert { return true }
            if (slot == next.slot && next.kind == .test) || (next.slot != activeSlot && next.kind == .normal) {
                if !allowsErasingPending { return true }
            }
            return slot == activeSlot
        }
    }

    /// Zephyr's `img_mgmt_get_unused_slot_area_id()`: the first slot not in use, where an upload goes.
    func uploadSlot(allowsErasingPending: Bool) -> Int? {
        slots.indices.first { !isInUse(slot: $0, allowsErasingPending: allowsErasingPending) }
    }

    /// Whether the image state write command exists (its handler is compiled out in direct-XIP
    /// without revert; the simulator answers RAM load the same way).
    var acceptsStateWrites: Bool { mode.strategy != .directXIP(revert: false) }
}
