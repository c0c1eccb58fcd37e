/// The bytes after an image's TLV areas, read as the MCUboot slot trailer the way `imgtool
/// dumpinfo` reads it: magic in the last 16 bytes, then `image_ok`, `copy_done`, `swap_info` and
/// the swap size, each one maximum alignment further back.
public struct McuBootImageTrailer: Sendable, Hashable {
    /// Bytes between the end of the TLV areas and the end of the file (padding plus trailer).
    public var paddingSize: Int
    /// The last 16 bytes of the file (fewer if the padding is shorter).
    public var magic: [UInt8]
    /// The maximum write alignment the magic encodes (8 for the classic magic), nil when the magic
    /// is not an MCUboot trailer magic.
    public var maxAlign: Int?
    /// `image_ok` (0x01 set, 0xff unset), when the trailer could be read.
    public var imageOK: UInt8?
    /// `copy_done`.
    public var copyDone: UInt8?
    /// `swap_info` (swap type in bits 0–3, image number in bits 4–7).
    public var swapInfo: UInt8?
    /// The swap size (0xffffffff when unset).
    public var swapSize: UInt32?
    /// For an encrypted image, the size of each encryption key field imgtool reports.
    public var encryptionKeyFieldLength: Int?

    /// Whether the last 16 bytes are an MCUboot trailer magic.
    public var hasValidMagic: Bool { maxAlign != nil }

    /// The classic 16-byte magic (maximum alignment 8).
    static let classicMagic: [UInt8] = [
        0x77, 0xc2, 0x95, 0xf3, 0x60, 0xd2, 0xef, 0x7f, 0x35, 0x52, 0x50, 0x0f, 0x2c, 0xb6, 0x79, 0x80,
    ]
    /// The last 14 bytes of the magic for other maximum alignments (the first 2 hold the alignment).
    static let alignedMagicTail: [UInt8] = [
        0x2d, 0xe1, 0x5d, 0x29, 0x41, 0x0b, 0x8d, 0x77, 0x67, 0x9c, 0x11, 0x0f, 0x1f, 0x8a,
    ]

    /// Reads the trailer of `bytes` whose image ends at `imageEnd`; nil when nothing follows it.
    /// Fields that would lie inside the image (too little padding) are left nil.
    init?(bytes: [UInt8], imageEnd: Int, flags: McuBootImageFlags) {
        guard imageEnd >= 0, imageEnd < bytes.count else { return nil }
        paddingSize = bytes.count - imageEnd
        magic = Array(bytes.suffix(min(16, paddingSize)))
        if magic == Self.classicMagic {
            maxAlign = 8
        } else if magic.count == 16, Array(magic.suffix(14)) == Self.alignedMagicTail {
            maxAlign = Int(magic[0]) | Int(magic[1]) << 8
        }
        guard let maxAlign, maxAlign > 0 else { return }
        // From the end of the magic backwards, as imgtool's dumpinfo: the magic takes
        // max(16, maxAlign) bytes, then one maxAlign unit each for image_ok, copy_done, swap_info,
        // and the swap size.
        var offset = bytes.count - max(16, maxAlign)
        func next() -> Int? {
            offset -= maxAlign
            return offset >= imageEnd ? offset : nil
        }
        imageOK = next().map { bytes[$0] }
        copyDone = next().map { bytes[$0] }
        swapInfo = next().map { bytes[$0] }
        swapSize = next().flatMap { bytes.le32(at: $0) }
        if !flags.isDisjoint(with: [.encryptedAES128, .encryptedAES256]) {
            encryptionKeyFieldLength = (16 + maxAlign - 1) / maxAlign * maxAlign * 2
        }
    }
}
