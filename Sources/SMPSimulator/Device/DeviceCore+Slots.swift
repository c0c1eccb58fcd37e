extension DeviceCore {
    /// The slots `img_mgmt_state_read()` lists, by image then slot: those whose image can be read,
    /// with the flags `image list` reports.
    var slotStates: [SlotState] {
        images.enumerated().flatMap { index, pair in
            pair.slots.indices.compactMap { slot -> SlotState? in
                guard let info = pair.slots[slot].imageInfo else { return nil }
                let flags = pair.reportedFlags(slot: slot)
                return SlotState(
                    image: index, slot: slot, version: info.version, hash: info.hash, bootable: info.isBootable,
                    pending: flags.pending, confirmed: flags.confirmed, active: flags.active, permanent: flags.permanent)
            }
        }
    }

    /// The slot holding an image whose SHA-256 TLV is `hash` (`img_mgmt_find_by_hash()`).
    func findSlot(hash: [UInt8]) -> SlotState? {
        slotStates.first { $0.hash == hash }
    }
}
