/// One image slot of flash: the bytes written since its last erase, and its MCUboot trailer.
///
/// Only the written prefix is stored; everything after it reads as erased (0xff).
struct FlashSlot: Sendable {
    /// The slot's size in bytes.
    let size: Int
    /// The bytes written from offset 0.
    private(set) var contents: [UInt8] = []
    /// The trailer fields at the end of the slot.
    var trailer = BootTrailer.erased

    init(size: Int) {
        self.size = size
    }

    /// Erases the slot, trailer included.
    mutating func erase() {
        contents = []
        trailer = .erased
    }

    /// Writes `data` at `offset` (the caller checked it fits the slot); a gap reads as 0xff.
    mutating func write(_ data: some Collection<UInt8>, at offset: Int) {
        if offset > contents.count {
            contents.append(contentsOf: repeatElement(0xff, count: offset - contents.count))
        }
        let end = offset + data.count
        if end > contents.count {
            contents.append(contentsOf: repeatElement(0xff, count: end - contents.count))
        }
        contents.replaceSubrange(offset..<end, with: data)
    }

    /// Replaces the whole contents (as a swap or a programmer would).
    mutating func replace(with bytes: [UInt8]) {
        contents = Array(bytes.prefix(size))
    }

    /// What `img_mgmt_read_info()` finds here.
    var imageInfo: SlotImageInfo? { SlotImageInfo.read(contents) }
}
