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
    public func slotStates() -> [SlotState] { core.slotStates }

    /// The swap MCUboot would perform for an image at the next boot (swap modes).
    public func swapType(image: Int) -> SwapType {
        core.images[image].swapType
    }

    /// The slot an image runs from: 0 in swap modes, the slot MCUboot chose in direct-XIP.
    public func activeSlot(image: Int) -> Int {
        core.images[image].activeSlot
    }

    /// The image upload in progress, if any.
    public var partialUpload: PartialUpload? { core.upload }

    /// Writes an image into a slot as a programmer would (slot erased first), with the trailer
    /// `mark` describes: none, marked for test or permanent, or confirmed (see ``SlotMark``).
    public func install(_ bytes: [UInt8], image: Int = 0, slot: Int = 0, mark: SlotMark = .none) {
        guard core.images.indices.contains(image), core.images[image].slots.indices.contains(slot) else { return }
        core.images[image].slots[slot].erase()
        core.images[image].slots[slot].write(bytes.prefix(core.images[image].slots[slot].size), at: 0)
        core.images[image].mark(slot: slot, mark)
    }

    /// Installs a running image of `version` in slot 0 of every image, as a freshly programmed device
    /// has (each payload seeded by its image number); returns the images installed, by image number.
    /// In direct-XIP with revert the image is confirmed, as a factory image must be there
    /// (MCUboot erases a selected slot without trailer magic).
    @discardableResult
    public func installRunningImages(version: ImageVersion, payloadSize: Int) -> [[UInt8]] {
        let mark: SlotMark = configuration.bootloaderMode == .directXIPWithRevert ? .confirmed : .none
        return core.images.indices.map { image in
            let bytes = MCUbootImageMaker.make(version: version, payloadSize: payloadSize, seed: UInt64(image))
            install(bytes, image: image, slot: 0, mark: mark)
            return bytes
        }
    }

    /// A file's contents.
    public func file(at path: String) -> [UInt8]? { core.files.contents(of: path) }

    /// Creates or replaces a file (as far as the file system has room).
    public func writeFile(at path: String, contents: [UInt8]) {
        guard core.files.create(path) else { return }
        _ = core.files.append(contents, to: path)
    }

    /// Files on the file system, and the bytes of their contents.
    public var fileSystemUsage: (files: Int, bytes: Int) { (core.files.files.count, core.files.used) }

    /// Settings kept in RAM, and the bytes of their names and values.
    public var settingsUsage: (entries: Int, bytes: Int) { (core.settings.runtime.count, core.settings.bytes) }

    /// A setting's value in RAM.
    public func setting(named name: String) -> [UInt8]? { core.settings.value(named: name) }

    /// A setting's value in the storage partition.
    public func persistedSetting(named name: String) -> [UInt8]? { core.settings.persisted[name] }

    /// The device log's messages, oldest first.
    public var logMessages: [String] { core.log.entries.map(\.message) }
}
