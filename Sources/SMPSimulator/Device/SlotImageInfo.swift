import Crypto

/// What the device reads from an image slot, as Zephyr's `img_mgmt_read_info()` does.
struct SlotImageInfo: Sendable, Hashable {
    /// The MCUboot image header magic (`IMAGE_MAGIC`).
    static let imageMagic: UInt32 = 0x96f3_b83d
    /// Magic of the unprotected TLV area.
    static let tlvInfoMagic: UInt16 = 0x6907
    /// Magic of the protected TLV area.
    static let protectedTLVInfoMagic: UInt16 = 0x6908
    /// Bytes of the fixed image header (`struct image_header`).
    static let headerLength = 32
    /// Header flag `IMAGE_F_NON_BOOTABLE`.
    static let nonBootableFlag: UInt32 = 0x10

    let version: ImageVersion
    /// The value of the SHA-256 TLV (0x10).
    let hash: [UInt8]
    /// Header flags.
    let flags: UInt32
    /// `ih_hdr_size + ih_img_size + ih_protect_tlv_size`: the bytes the hash covers.
    let hashedLength: Int

    var isBootable: Bool { flags & Self.nonBootableFlag == 0 }

    /// Reads the header and walks the TLVs; nil where Zephyr's read fails (no image, bad magic, no or
    /// malformed TLVs, no or several SHA-256 TLVs): such a slot is neither listed nor found by hash.
    static func read(_ bytes: [UInt8]) -> SlotImageInfo? {
        guard bytes.count >= headerLength, bytes.le32(0) == imageMagic else { return nil }
        let headerSize = Int(bytes.le16(8))
        let protectedSize = Int(bytes.le16(10))
        let imageSize = Int(bytes.le32(12))
        let flags = bytes.le32(16)
        var offset = headerSize + imageSize
        let hashedLength = offset + protectedSize
        // Skip the protected area when there is one.
        if protectedSize > 0 {
            guard offset + 4 <= bytes.count, bytes.le16(offset) == protectedTLVInfoMagic else { return nil }
            offset += protectedSize
        }
        guard offset + 4 <= bytes.count, bytes.le16(offset) == tlvInfoMagic else { return nil }
        let end = offset + Int(bytes.le16(offset + 2))
        guard end <= bytes.count else { return nil }
        offset += 4
        var hash: [UInt8]?
        while offset < end {
            guard offset + 4 <= end else { return nil }
            let type = bytes.le16(offset)
            let length = Int(bytes.le16(offset + 2))
            if type == 0xffff && length == 0xffff { return nil }
            let valueStart = offset + 4
            guard valueStart + length <= end else { return nil }
            if type == 0x10 {
                guard length == 32, hash == nil else { return nil }
                hash = Array(bytes[valueStart..<valueStart + length])
            }
            offset = valueStart + length
        }
        guard let hash else { return nil }
        return SlotImageInfo(version: headerVersion(bytes), hash: hash, flags: flags, hashedLength: hashedLength)
    }

    /// The version field of an image header (`bytes` holds at least ``headerLength`` bytes).
    static func headerVersion(_ bytes: [UInt8]) -> ImageVersion {
        ImageVersion(bytes[20], bytes[21], bytes.le16(22), build: bytes.le32(24))
    }

    /// MCUboot's integrity check: the SHA-256 TLV equals the hash of header, payload and protected TLVs.
    func hashMatches(_ bytes: [UInt8]) -> Bool {
        guard hashedLength <= bytes.count else { return false }
        return Array(SHA256.hash(data: bytes[0..<hashedLength])) == hash
    }
}
