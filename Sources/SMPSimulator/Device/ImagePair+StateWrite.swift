extension ImagePair {
    /// Zephyr's `img_mgmt_set_next_boot_slot()`, then MCUboot's `boot_set_next()`: marks `slot`
    /// for test (`confirm == false`) or permanent/confirmed; returns the image group error code,
    /// or nil on success.
    ///
    /// - Parameter isActiveImage: whether this pair is the image running the SMP server.
    /// - Parameter allowsConfirmingOtherImages: `CONFIG_MCUMGR_GRP_IMG_ALLOW_CONFIRM_NON_ACTIVE_IMAGE_ANY`.
    mutating func setNextBoot(
        slot: Int, confirm: Bool, isActiveImage: Bool, allowsConfirmingOtherImages: Bool
    ) -> DeviceErrorCode? {
        if mode.strategy == .directXIP(revert: true) {
            // Zephyr's direct-XIP-with-revert variant checks only this, then writes the trailer.
            if !confirm && slot == activeSlot { return ImageError.imageSettingTestToActiveDenied }
            return bootSetNext(slot: slot, confirm: confirm)
        }
        let next = nextBoot
        let active = activeSlot
        if confirm && !isActiveImage && !allowsConfirmingOtherImages {
            return ImageError.imageConfirmationDenied
        }
        if !confirm && slot == active { return ImageError.imageSettingTestToActiveDenied }
        switch next.kind {
        case .test:
            if !confirm && slot == next.slot { return nil }
            return ImageError.imageAlreadyPending
        case .normal:
            if confirm && slot == next.slot { return nil }
            if (slot == active && active != next.slot) || (!confirm && slot != active && slot == next.slot) {
                return ImageError.imageAlreadyPending
            }
        case .revert:
            if confirm && slot == next.slot { return nil }
            if !confirm { return ImageError.imageAlreadyPending }
        }
        return bootSetNext(slot: slot, confirm: confirm)
    }

    /// MCUboot's `boot_set_next()` on the trailer of `slot`.
    private mutating func bootSetNext(slot: Int, confirm: Bool) -> DeviceErrorCode? {
        let isActive = slot == activeSlot
        var trailer = slots[slot].trailer
        if trailer.magic {
            // Non-active: a swap is already scheduled. Active: confirm when not yet confirmed.
            if isActive && !trailer.imageOK { trailer.imageOK = true }
        } else if !isActive {
            guard slots[slot].imageInfo != nil else {
                // A corrupt slot cannot boot: MCUboot erases it so that later uploads work.
                slots[slot].erase()
                return ImageError.invalidImageHeaderMagic
            }
            trailer.magic = true
            trailer.imageOK = confirm
        }
        // Active slot with an unset magic: already confirmed (an image flashed without a trailer).
        slots[slot].trailer = trailer
        return nil
    }
}
