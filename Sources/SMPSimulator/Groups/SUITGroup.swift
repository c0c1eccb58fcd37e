import CBOR

/// Group 66, nRF Connect SDK's SUIT group (`subsys/mgmt/suitfu`), on a device built with
/// ``DeviceConfiguration/suit``: manifest roles and states, the candidate envelope upload (processed
/// when complete unless `defer_install`; `len` 0 at offset 0 starts a deferred one), the poll for the
/// image processing asks for and its upload by `stream_session_id`, cache uploads by `target_id`,
/// cleanup. Uploads answer `{"rc", "off"}` as NCS does, `rc` 1 with the expected `off` for a chunk
/// at another offset.
struct SUITGroup: ManagementGroup {
    let id: UInt16 = 66
    let name = "suit mgmt"
    let handlerCount = 7

    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult? {
        guard device.suit != nil else { return nil }
        switch (request.header.command, request.isWrite) {
        case (0, false):
            let roles = device.suit!.roles.map { CBORValue.map([(.text("role"), .unsigned(UInt64($0.role)))]) }
            return .success([(key: "manifests", value: .array(roles))])
        case (1, false):
            return try state(request, device)
        case (2, true):
            return try envelopeUpload(request, device)
        case (3, false):
            return poll(device)
        case (4, true):
            return try resourceUpload(request, device)
        case (5, true):
            return try cacheUpload(request, device)
        case (6, true):
            device.suit!.envelope = nil
            device.suit!.caches = [:]
            device.suit!.envelopeUpload = nil
            device.suit!.cacheUpload = nil
            device.counters.flashErases += 1
            device.record(.info, .image, "SUIT: DFU and cache partitions erased")
            return .empty
        default:
            return nil
        }
    }

    private func state(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        guard let number = try request.fields().unsigned("role"), let role = device.suit!.roles.first(where: { UInt64($0.role) == number }) else {
            throw StatusError(MgmtError.invalid)
        }
        var entries: ResponseEntries = [
            (key: "class_id", value: .bytes(role.classID)),
            (key: "vendor_id", value: .bytes(role.vendorID)),
            (key: "downgrade_prevention_policy", value: .unsigned(1)),
            (key: "independent_updateability_policy", value: .unsigned(1)),
            (key: "signature_verification_policy", value: .unsigned(2)),
        ]
        if let sequence = role.sequenceNumber, let digest = device.suit!.digests[role.role] {
            entries += [
                (key: "digest", value: .bytes(digest)),
                (key: "digest_algorithm", value: .negative(15)),
                (key: "signature_check", value: .unsigned(2)),
                (key: "sequence_number", value: .unsigned(sequence)),
            ]
            if let version = role.semanticVersion {
                entries.append((key: "semantic_version", value: .array(version.map { $0 >= 0 ? .unsigned(UInt64($0)) : .negative(UInt64(-1 - $0)) })))
            }
        }
        return .success(entries)
    }

    private func envelopeUpload(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let fields = try request.fields()
        if try fields.unsigned("off") == 0, try fields.unsigned("len") == 0, !fields.has("data") {
            // Start processing an envelope stored with defer_install.
            guard device.suit!.envelope != nil else { throw StatusError(MgmtError.badState) }
            device.suit!.deferred = false
            startProcessing(device)
            return .success([(key: "rc", value: .unsigned(0)), (key: "off", value: .unsigned(0))])
        }
        if try fields.unsigned("off") == 0 {
            device.suit!.envelope = nil
            device.suit!.deferred = try fields.bool("defer_install") ?? false
        }
        var transfer = device.suit!.envelopeUpload
        defer { device.suit!.envelopeUpload = transfer }
        let (result, completed) = try receive(fields, into: &transfer, capacity: device.suit!.configuration.dfuPartitionSize, device)
        if let completed {
            device.suit!.envelope = completed
            guard SUITEnvelopeSummary(completed) != nil else {
                device.record(.error, .image, "SUIT: the candidate envelope is not valid")
                return .success([(key: "rc", value: .unsigned(UInt64(MgmtError.invalid))), (key: "off", value: .unsigned(UInt64(completed.count)))])
            }
            device.record(.info, .image, "SUIT: candidate envelope stored (\(completed.count) bytes)")
            if !device.suit!.deferred { startProcessing(device) }
        }
        return result
    }

    private func startProcessing(_ device: DeviceCore) {
        if device.suit!.startProcessing(at: device.time.now) {
            installSoon(device)
        } else if case .idle = device.suit!.processing {
            device.record(.error, .image, "SUIT: the envelope was refused (not newer than the installed manifest)")
        }
    }

    private func installSoon(_ device: DeviceCore) {
        device.record(.info, .image, "SUIT: processing done, rebooting to install")
        device.effects.append(.reboot(after: device.suit!.configuration.processingTime, reason: "SUIT update"))
    }

    private func poll(_ device: DeviceCore) -> HandlerResult {
        device.suit!.expireFetch(at: device.time.now)
        guard case .fetching(let index, let session, _) = device.suit!.processing else { return .empty }
        return .success([
            (key: "stream_session_id", value: .unsigned(UInt64(session))),
            (key: "resource_id", value: .bytes(Array(device.suit!.uri(ofFetch: index).utf8))),
        ])
    }

    private func resourceUpload(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let fields = try request.fields()
        device.suit!.expireFetch(at: device.time.now)
        guard case .fetching(let index, let session, _) = device.suit!.processing,
              try fields.unsigned("stream_session_id") == UInt64(session)
        else { throw StatusError(MgmtError.badState) }
        var transfer = device.suit!.resourceUpload
        defer { device.suit!.resourceUpload = transfer }
        let (result, completed) = try receive(fields, into: &transfer, capacity: device.suit!.configuration.dfuPartitionSize, device)
        if let completed {
            if device.suit!.configuration.hostility == .asksForUnknownResource || !device.suit!.accepts(completed, forFetch: index) {
                device.record(.error, .image, "SUIT: the image of session \(session) does not match the manifest; update abandoned")
                device.suit!.processing = .idle
                device.suit!.pendingInstall = nil
            } else if device.suit!.advance(to: index + 1, at: device.time.now) {
                installSoon(device)
            }
        }
        return result
    }

    private func cacheUpload(_ request: Request, _ device: DeviceCore) throws(StatusError) -> HandlerResult {
        let fields = try request.fields()
        if try fields.unsigned("off") == 0 {
            guard let target = try fields.unsigned("target_id"), device.suit!.configuration.cachePartitions[Int(target)] != nil else {
                throw StatusError(MgmtError.noEntry)
            }
            device.suit!.cacheUpload = (Int(target), SUITState.Transfer(size: 0, bytes: []))
        }
        guard let target = device.suit!.cacheUpload?.target, let capacity = device.suit!.configuration.cachePartitions[target] else {
            throw StatusError(MgmtError.badState)
        }
        var transfer: SUITState.Transfer? = try fields.unsigned("off") == 0 ? nil : device.suit!.cacheUpload?.transfer
        let (result, completed) = try receive(fields, into: &transfer, capacity: capacity, device)
        device.suit!.cacheUpload = transfer.map { (target, $0) }
        if let completed { device.suit!.caches[target] = completed }
        return result
    }

    /// One chunk of a transfer, as NCS's SUIT upload handlers take it; returns the answer and, after
    /// the last chunk, the whole image.
    private func receive(
        _ fields: RequestFields, into transfer: inout SUITState.Transfer?, capacity: Int, _ device: DeviceCore
    ) throws(StatusError) -> (HandlerResult, [UInt8]?) {
        guard let offset = try fields.unsigned("off").map(Int.init) else { throw StatusError(MgmtError.invalid) }
        let data = try fields.bytes("data") ?? []
        if offset == 0 {
            guard let length = try fields.unsigned("len"), length > 0 else { throw StatusError(MgmtError.invalid) }
            guard length <= UInt64(capacity) else { throw StatusError(MgmtError.noMemory) }
            transfer = SUITState.Transfer(size: Int(length), bytes: [])
            device.counters.flashErases += 1
        }
        guard var current = transfer else { throw StatusError(MgmtError.badState) }
        guard offset + data.count <= current.size else {
            transfer = nil
            throw StatusError(MgmtError.noMemory)
        }
        func answer(_ rc: Int, _ off: Int) -> HandlerResult {
            .success([(key: "rc", value: .unsigned(UInt64(rc))), (key: "off", value: .unsigned(UInt64(off)))])
        }
        if device.suit!.configuration.hostility == .rewindsOffsets && offset > 0 {
            return (answer(0, max(1, offset / 2)), nil)
        }
        guard offset == current.bytes.count else { return (answer(MgmtError.unknown, current.bytes.count), nil) }
        current.bytes += data
        device.noteFlashWrite(data.count)
        if current.bytes.count == current.size {
            transfer = nil
            return (answer(0, current.size), current.bytes)
        }
        transfer = current
        return (answer(0, current.bytes.count), nil)
    }
}
