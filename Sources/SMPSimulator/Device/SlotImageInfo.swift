import Crypto

/// What the device reads from an image slot, as Zephyr's `img_mgmt_read_info()` does.
struct SlotImageInfo: Sendable, Hashable {
    /// Offset of the MCUboot image header magic.
    static let imageMagic: UInt32 = 0x96f3_b83d
    /// Magic of the unprotected TLV area.
    static let tlvInfoMagic: UInt16 = 0x6907
    /// Magic of the protected TLV area.
    static let protectedTLVInfoMagic: UInt16 = 0x6908
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

    /// Reads the header and walks the TLVs; the error is the image group code Zephyr would give.
    static func read(_ bytes: [UInt8]) -> Result<SlotImageInfo, DeviceImageError> {
        guard bytes.count >= 32 else { return .failure(.noImage) }
        let magic = bytes.le32(0)
        guard magic == imageMagic else {
            return .failure(magic == 0xffff_ffff ? .noImage : .invalidHeaderMagic)
        }
        let headerSize = Int(bytes.le16(8))
        let protectedSize = Int(bytes.le16(10))
        let imageSize = Int(bytes.le32(12))
        let flags = bytes.le32(16)
        let version = ImageVersion(bytes[20], bytes[21], bytes.le16(22), build: bytes.le32(24))
        var offset = headerSize + imageSize
        let hashedLength = offset + protectedSize
        // Skip the protected area when there is one.
        if protectedSize > 0 {
            guard offset + 4 <= bytes.count, bytes.le16(offset) == protectedTLVInfoMagic else {
                return .failure(.noTLVs)
            }
            offset += protectedSize
        }
        guard offset + 4 <= bytes.count, bytes.le16(offset) == tlvInfoMagic else { return .failure(.noTLVs) }
        let end = offset + Int(bytes.le16(offset + 2))
        guard end <= bytes.count else { return .failure(.invalidTLV) }
        offset += 4
        var hash: [UInt8]?
        while offset < end {
            guard offset + 4 <= end else { return .failure(.invalidTLV) }
            let type = bytes.le16(offset)
            let length = Int(bytes.le16(offset + 2))
            if type == 0xffff && length == 0xffff { return .failure(.invalidTLV) }
            let valueStart = offset + 4
            guard valueStart + length <= end else { return .failure(.invalidTLV) }
            if type == 0x10 {
                guard length == 32 else { return .failure(.tlvInvalidSize) }
                guard hash == nil else { return .failure(.multipleHashes) }
                hash = Array(bytes[valueStart..<valueStart + length])
            }
            offset = valueStart + length
        }
        guard let hash else { return .failure(.hashNotFound) }
        return .success(SlotImageInfo(version: version, hash: hash, flags: flags, hashedLength: hashedLength))
    }

    /// MCUboot's integrity check: the SHA-256 TLV equals the hash of header, payload and protected TLVs.
    func hashMatches(_ bytes: [UInt8]) -> Bool {
        guard hashedLength <= bytes.count else { return false }
        return Array(SHA256.hash(data: bytes[0..<hashedLength])) == hash
    }
}
