/// The 32-byte header at the start of an MCUboot image (`struct image_header`, little-endian).
public struct McuBootImageHeader: Sendable, Hashable {
    /// `IMAGE_MAGIC`, 0x96f3b83d (`3d b8 f3 96` in the file).
    public static let magic: UInt32 = 0x96f3_b83d
    /// The legacy version-1 magic, 0x96f3b83c, which current MCUboot refuses.
    public static let legacyMagic: UInt32 = 0x96f3_b83c
    /// The size of the header structure in bytes; `headerSize` may be larger (padding).
    public static let size = 32

    /// `ih_load_addr`: the RAM load address (with `.ramLoad`) or fixed flash address (with `.romFixed`).
    public var loadAddress: UInt32
    /// `ih_hdr_size`: header size including padding, i.e. the offset of the payload.
    public var headerSize: UInt16
    /// `ih_protect_tlv_size`: size of the protected TLV area including its 4-byte info header; 0 if none.
    public var protectedTLVSize: UInt16
    /// `ih_img_size`: payload size in bytes, header excluded.
    public var imageSize: UInt32
    /// `ih_flags`.
    public var flags: McuBootImageFlags
    /// `ih_ver`: the image version.
    public var version: McuBootVersion

    /// Creates a header from its fields.
    public init(
        loadAddress: UInt32 = 0, headerSize: UInt16 = 0x20, protectedTLVSize: UInt16 = 0,
        imageSize: UInt32, flags: McuBootImageFlags = [], version: McuBootVersion
    ) {
        self.loadAddress = loadAddress
        self.headerSize = headerSize
        self.protectedTLVSize = protectedTLVSize
        self.imageSize = imageSize
        self.flags = flags
        self.version = version
    }

    /// Parses the first 32 bytes of `bytes`; checks the magic and that `ih_hdr_size` is at least 32.
    public init(parsing bytes: [UInt8]) throws(McuBootError) {
        guard bytes.count >= Self.size, let magic = bytes.le32(at: 0), let loadAddress = bytes.le32(at: 4),
            let headerSize = bytes.le16(at: 8), let protectedTLVSize = bytes.le16(at: 10),
            let imageSize = bytes.le32(at: 12), let flags = bytes.le32(at: 16),
            let version = McuBootVersion(imageVersionAt: 20, in: bytes)
        else { throw .tooShort(size: bytes.count) }
        guard magic == Self.magic else { throw .badMagic(found: magic) }
        guard Int(headerSize) >= Self.size else { throw .headerSizeTooSmall(headerSize) }
        self.init(
            loadAddress: loadAddress, headerSize: headerSize, protectedTLVSize: protectedTLVSize,
            imageSize: imageSize, flags: McuBootImageFlags(rawValue: flags), version: version)
    }

    /// The 32 header bytes as MCUboot stores them (`_pad1` written as zero).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.size)
        out.appendLE32(Self.magic)
        out.appendLE32(loadAddress)
        out.appendLE16(headerSize)
        out.appendLE16(protectedTLVSize)
        out.appendLE32(imageSize)
        out.appendLE32(flags.rawValue)
        out += version.imageVersionBytes
        out.appendLE32(0)
        return out
    }
}
