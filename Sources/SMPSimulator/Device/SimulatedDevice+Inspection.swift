extension SimulatedDevice {
    /// Every request the device saw (including those the link dropped), oldest first.
    public var requestLog: [RequestRecord] { records }

    /// Packets that reached the device's link, whatever became of them.
    public var packetsReceived: Int { arrivals }

    /// SMP requests the device's SMP server processed.
    public var requestsProcessed: Int { Int(core.counters.requests) }

    /// Requests holding a buffer right now.
    public var requestsInFlight: Int { inFlight }

    /// The most requests that held buffers at once.
    public var maximumRequestsInFlight: Int { maxInFlight }

    /// Boots so far (1 after start).
    public var bootCount: Int { core.bootCount }

    /// Whether the device is rebooting (and not answering).
    public var isRebooting: Bool { isOffline }

    /// The bytes written to a slot since its last erase.
    public func slotContents(image: Int, slot: Int) -> [UInt8] {
        guard core.images.indices.contains(image), (0...1).contains(slot) else { return [] }
        return core.images[image].slots[slot].contents
    }

    /// The slots that hold a valid image, with the flags `image list` would report.
    public func slotStates() -> [SlotState] {
        var states: [SlotState] = []
        for (index, pair) in core.images.enumerated() {
            for slot in 0..<2 {
                guard case .success(let info) = pair.slots[slot].imageInfo else { continue }
                let flags = pair.reportedFlags(slot: slot)
                states.append(
                    SlotState(
                        image: index, slot: slot, version: info.version, hash: info.hash, bootable: info.isBootable,
                        pending: flags.pending, confirmed: flags.confirmed, active: flags.active,
                        permanent: flags.permanent))
            }
        }
        return states
    }

    /// The swap MCUboot would perform for an image at the next boot.
    public func swapType(image: Int) -> SwapType {
        core.images[image].swapType
    }

    /// The image upload in progress, if any.
    public var partialUpload: PartialUpload? {
        core.upload.map { PartialUpload(image: $0.image, offset: $0.offset, size: $0.size, sha: $0.sha) }
    }

    /// Writes an image into a slot as a programmer would (slot erased first, trailer left erased).
    public func install(_ bytes: [UInt8], image: Int = 0, slot: Int = 0) {
        guard core.images.indices.contains(image), (0...1).contains(slot) else { return }
        core.images[image].slots[slot].erase()
        core.images[image].slots[slot].write(bytes.prefix(core.images[image].slots[slot].size), at: 0)
    }

    /// A file's contents.
    public func file(at path: String) -> [UInt8]? { core.files.contents(of: path) }

    /// Creates or replaces a file.
    public func writeFile(at path: String, contents: [UInt8]) {
        core.files.create(path)
        _ = core.files.append(contents, to: path)
    }

    /// A setting's value in RAM.
    public func setting(named name: String) -> [UInt8]? { core.settings.value(named: name) }

    /// A setting's value in the storage partition.
    public func persistedSetting(named name: String) -> [UInt8]? { core.settings.persisted[name] }

    /// The device log's messages, oldest first.
    public var logMessages: [String] { core.log.entries.map(\.message) }
}
