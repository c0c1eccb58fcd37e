import CBOR
import Crypto

extension ImageGroup {
    /// Image upload, one chunk per request (`img_mgmt_upload()` with `img_mgmt_upload_inspect()`).
    func upload(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let fields = try request.fields()
        let image = try fields.unsigned("image") ?? 0
        let data = try fields.bytes("data") ?? []
        let length = try fields.unsigned("len")
        let offset = try fields.unsigned("off")
        let sha = try fields.bytes("sha") ?? []
        let upgrade = try fields.bool("upgrade") ?? false

        guard let offset, let off = Int(exactly: offset) else { return failed(device, ImageError.invalidOffset) }
        if off == 0 {
            return try firstChunk(
                data: data, length: length, image: image, sha: sha, upgrade: upgrade, device: device)
        }
        // A chunk resent at an offset already written: a quirky device writes it again where it is.
        if device.configuration.quirks.contains(.duplicateWrites), let state = device.upload, off < state.offset,
            state.offset + data.count <= state.size
        {
            return write(data, at: state.offset, state: state, device: device)
        }
        // Continuation: a wrong offset is answered with success and the offset expected.
        guard let state = device.upload, off == state.offset else {
            return .success([(key: "off", value: .int(device.upload?.offset ?? 0))])
        }
        guard off + data.count <= state.size else { return failed(device, ImageError.invalidImageDataOverrun) }
        if let fault = device.uploadFaults.fire(at: off) {
            device.effects.append(fault)
            return .silent
        }
        return write(data, at: off, state: state, device: device)
    }

    private func firstChunk(
        data: [UInt8], length: UInt64?, image: UInt64, sha: [UInt8], upgrade: Bool, device: DeviceCore
    ) throws(StatusError) -> HandlerResult {
        guard !device.uploadFaults.refusesUploads else {
            // The application's upload check hook rejects the image ("app reject").
            device.upload = nil
            device.record(.warn, .image, "upload refused by the application")
            return .status(MgmtError.accessDenied)
        }
        guard data.count >= SlotImageInfo.headerLength else { return failed(device, ImageError.invalidImageHeader) }
        guard let length, let size = Int(exactly: length) else { return failed(device, ImageError.invalidLength) }
        guard data.le32(0) == SlotImageInfo.imageMagic else { return failed(device, ImageError.invalidImageHeaderMagic) }
        guard sha.count <= 32 else { return failed(device, ImageError.invalidHash) }
        // Resume: the same `sha` as the upload in progress answers its offset and writes nothing.
        if !sha.isEmpty, let state = device.upload, state.sha == sha, !device.configuration.quirks.contains(.noResume) {
            return .success([(key: "off", value: .int(state.offset))])
        }
        guard image < UInt64(device.images.count),
            let target = device.images[Int(image)].uploadSlot(allowsErasingPending: device.configuration.allowsErasingPendingSlots)
        else {
            return failed(device, ImageError.noFreeSlot)
        }
        let index = Int(image)
        guard size <= device.images[index].slots[target].size else {
            return failed(device, ImageError.invalidImageTooLarge)
        }
        guard data.count <= size else { return failed(device, ImageError.invalidImageDataOverrun) }
        if upgrade, let running = device.images[index].slots[device.images[index].activeSlot].imageInfo {
            let new = SlotImageInfo.headerVersion(data)
            let newer = device.configuration.comparesBuildNumbers ? new > running.version : new.compareIgnoringBuild(running.version) > 0
            guard newer else { return failed(device, ImageError.currentVersionIsNewer) }
        }
        // Image check: the slot already holds exactly this file.
        let slot = device.images[index].slots[target]
        if device.configuration.checksUploadedImages, sha.count == 32, slot.contents.count >= size,
            Array(SHA256.hash(data: slot.contents[0..<size])) == sha
        {
            device.upload = nil
            return .success([(key: "off", value: .int(size)), (key: "match", value: .bool(true))])
        }
        device.images[index].slots[target].erase()
        device.counters.flashErases += 1
        let state = PartialUpload(image: index, slot: target, offset: 0, size: size, sha: sha)
        device.upload = state
        device.record(.info, .image, "upload of \(size) bytes to image \(index) slot \(target) started")
        return write(data, at: 0, state: state, device: device)
    }

    private func write(_ data: [UInt8], at off: Int, state: PartialUpload, device: DeviceCore) -> HandlerResult {
        var state = state
        guard !data.isEmpty else { return .success([(key: "off", value: .int(state.offset))]) }
        device.images[state.image].slots[state.slot].write(data, at: off)
        device.noteFlashWrite(data.count)
        state.offset += data.count
        guard state.offset == state.size else {
            device.upload = state
            return .success([(key: "off", value: .int(state.offset))])
        }
        device.upload = nil
        device.record(.info, .image, "upload to image \(state.image) slot \(state.slot) complete")
        var entries: ResponseEntries = [(key: "off", value: .int(state.offset))]
        if device.configuration.checksUploadedImages {
            let contents = device.images[state.image].slots[state.slot].contents
            let match = state.sha.count == 32 && Array(SHA256.hash(data: contents[0..<state.size])) == state.sha
            entries.append((key: "match", value: .bool(match)))
        }
        return .success(entries)
    }

    /// Any upload error resets the upload state.
    private func failed(_ device: DeviceCore, _ code: DeviceErrorCode) -> HandlerResult {
        device.upload = nil
        return .error(id, code)
    }
}
