import CBOR

/// Group 1, image management (smp-reference §3.2, §6.4, §6.5).
struct ImageGroup: ManagementGroup {
    let id: UInt16 = 1
    let name = "img mgmt"
    let handlerCount = 4

    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult? {
        if device.busyFaults.fire(command: request.header.command) {
            device.record(.warn, .image, "busy: command \(request.header.command) refused")
            return .status(MgmtError.busy)
        }
        switch (request.header.command, request.isRead) {
        case (0, true): return .success(stateEntries(device))
        case (0, false) where device.images[0].acceptsStateWrites: return try writeState(request, device)
        case (1, false): return try upload(request, device)
        case (5, false): return try erase(request, device)
        case (6, true): return slotInfo(device)
        default: return nil
        }
    }

    /// The v1 translation of `img_mgmt_translate_error_code()`.
    func translateForV1(_ code: DeviceErrorCode) -> DeviceErrorCode {
        switch code {
        case ImageError.noImage, ImageError.noTLVs:
            return MgmtError.noEntry
        case ImageError.noFreeSlot, ImageError.currentVersionIsNewer, ImageError.imageAlreadyPending:
            return MgmtError.badState
        case ImageError.noFreeMemory:
            return MgmtError.noMemory
        case ImageError.invalidSlot, ImageError.invalidPageOffset, ImageError.invalidOffset, ImageError.invalidLength,
            ImageError.invalidImageHeader, ImageError.invalidHash, ImageError.invalidFlashAddress:
            return MgmtError.invalid
        default:
            return MgmtError.unknown
        }
    }

    // MARK: - State

    /// `{"images": [...], "splitStatus": 0}` as `img_mgmt_state_read()` writes it.
    func stateEntries(_ device: DeviceCore) -> ResponseEntries {
        let list: [CBORValue] = device.slotStates.map { state in
            var entries: ResponseEntries = []
            if device.images.count > 1 { entries.append((key: "image", value: .int(state.image))) }
            entries += [
                (key: "slot", value: .int(state.slot)),
                (key: "version", value: .text(state.version.description)),
                (key: "hash", value: .bytes(state.hash)),
                (key: "bootable", value: .bool(state.bootable)),
                (key: "pending", value: .bool(state.pending)),
                (key: "confirmed", value: .bool(state.confirmed)),
                (key: "active", value: .bool(state.active)),
                (key: "permanent", value: .bool(state.permanent)),
            ]
            return DeviceCore.map(entries)
        }
        return [(key: "images", value: .array(list)), (key: "splitStatus", value: .int(0))]
    }

    private func writeState(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let fields = try request.fields()
        let hash = try fields.bytes("hash") ?? []
        let confirm = try fields.bool("confirm") ?? false
        let image: Int
        let slot: Int
        if hash.isEmpty {
            guard confirm else { return .error(id, ImageError.invalidHash) }
            (image, slot) = (0, device.images[0].activeSlot)
        } else if hash.count != 32 {
            return .error(id, ImageError.invalidHash)
        } else if let found = device.findSlot(hash: hash) {
            (image, slot) = (found.image, found.slot)
        } else {
            return .error(id, ImageError.hashNotFound)
        }
        if let code = device.images[image].setNextBoot(
            slot: slot, confirm: confirm, isActiveImage: image == 0,
            allowsConfirmingOtherImages: device.configuration.allowsConfirmingOtherImages)
        {
            return .error(id, code)
        }
        device.record(.info, .image, confirm ? "image \(image) slot \(slot) confirmed" : "image \(image) slot \(slot) marked for test")
        return .success(stateEntries(device))
    }

    // MARK: - Erase and slot info

    private func erase(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let requested = request.payload.isEmpty ? nil : try request.fields().unsigned("slot")
        // Default: the other slot of the running image (absolute slot numbers: image n has 2n and 2n+1).
        let absolute = Int(clamping: requested ?? UInt64(device.images[0].otherSlot))
        guard absolute < device.images.count * 2, absolute % 2 < device.images[absolute / 2].slots.count else {
            return .error(id, ImageError.invalidSlot)
        }
        let (image, slot) = (absolute / 2, absolute % 2)
        let allowsPending = device.configuration.allowsErasingPendingSlots
        if device.images[image].slots[slot].imageInfo != nil,
            device.images[image].isInUse(slot: slot, allowsErasingPending: allowsPending)
        {
            return .error(id, ImageError.noFreeSlot)
        }
        device.images[image].slots[slot].erase()
        device.counters.flashErases += 1
        device.upload = nil
        device.record(.info, .image, "image \(image) slot \(slot) erased")
        return .empty
    }

    private func slotInfo(_ device: DeviceCore) -> HandlerResult {
        var images: [CBORValue] = []
        for (index, pair) in device.images.enumerated() {
            var slots: [CBORValue] = []
            for slot in pair.slots.indices {
                // No `upload_image_id`: Zephyr sends it only with direct upload, which this device does not model.
                let entries: ResponseEntries = [
                    (key: "slot", value: .int(slot)), (key: "size", value: .int(pair.slots[slot].size)),
                ]
                slots.append(DeviceCore.map(entries))
            }
            images.append(DeviceCore.map([(key: "image", value: .int(index)), (key: "slots", value: .array(slots))]))
        }
        return .success([(key: "images", value: .array(images))])
    }
}
