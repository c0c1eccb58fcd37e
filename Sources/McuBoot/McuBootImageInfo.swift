/// Everything `imgtool dumpinfo` shows about an image file — header, TLV areas, trailer — plus
/// what it means: hash algorithm and whether the hash verifies, signatures, key hash, security
/// counter and dependencies.
public struct McuBootImageInfo: Sendable, Hashable {
    /// The header fields (`imgtool dumpinfo`'s "Image header").
    public struct Header: Sendable, Hashable {
        /// `ih_magic` (always `0x96f3b83d` in a parsed image).
        public var magic: UInt32
        /// `ih_load_addr`.
        public var loadAddress: UInt32
        /// `ih_hdr_size`.
        public var headerSize: UInt16
        /// `ih_protect_tlv_size`.
        public var protectedTLVSize: UInt16
        /// `ih_img_size`.
        public var imageSize: UInt32
        /// `ih_flags`.
        public var flags: McuBootImageFlags
        /// The set flags by imgtool's names, e.g. `["NON_BOOTABLE", "RAM_LOAD"]`; unknown bits in hex.
        public var flagNames: [String]
        /// `ih_ver`, with the build number.
        public var version: McuBootVersion
    }

    /// One TLV record.
    public struct TLV: Sendable, Hashable {
        /// Offset of the record's 4-byte header in the file.
        public var offset: Int
        /// The type.
        public var type: McuBootTLVType
        /// The value's length in bytes.
        public var length: Int
        /// The value.
        public var value: [UInt8]
    }

    /// One TLV area.
    public struct TLVArea: Sendable, Hashable {
        /// Whether it is the protected area (covered by the hash).
        public var isProtected: Bool
        /// Offset of its 4-byte info header in the file.
        public var offset: Int
        /// The info header's magic (0x6908 protected, 0x6907 unprotected).
        public var magic: UInt16
        /// `it_tlv_tot`: the area's size including the info header.
        public var size: Int
        /// The records in file order.
        public var tlvs: [TLV]
    }

    /// The header fields.
    public var header: Header
    /// The protected TLV area, if the image has one.
    public var protectedArea: TLVArea?
    /// The unprotected TLV area.
    public var unprotectedArea: TLVArea
    /// The size of the file in bytes.
    public var fileSize: Int
    /// Offset one past the unprotected TLV area; bytes after it are padding and trailer.
    public var imageEnd: Int
    /// The digest the image carries.
    public var hashAlgorithm: McuBootHashAlgorithm
    /// The stored hash.
    public var hash: [UInt8]
    /// The hash recomputed from the file.
    public var computedHash: [UInt8]
    /// SHA-256 of the whole file (what an upload's `sha` carries).
    public var fileSHA256: [UInt8]
    /// The kinds of the signature TLVs, in file order; empty when unsigned.
    public var signatureKinds: [McuBootSignatureKind]
    /// The hash of the signing key the image names (its `KEYHASH` TLV, or the digest of its `PUBKEY` TLV).
    public var keyHash: [UInt8]?
    /// The signing public key embedded with `--public-key-format full` (`PUBKEY` TLV).
    public var publicKey: [UInt8]?
    /// The protected security counter (`SEC_CNT` TLV).
    public var securityCounter: UInt32?
    /// The protected dependencies (`DEPENDENCY` TLVs).
    public var dependencies: [McuBootImageDependency]
    /// The padding and slot trailer after the image, if the file has bytes after its TLV areas.
    public var trailer: McuBootImageTrailer?

    /// Whether the stored hash matches the file's contents.
    public var hashVerifies: Bool { hash == computedHash }

    /// Describes a parsed image.
    public init(image: McuBootImage) {
        let h = image.header
        header = Header(
            magic: McuBootImageHeader.magic, loadAddress: h.loadAddress, headerSize: h.headerSize,
            protectedTLVSize: h.protectedTLVSize, imageSize: h.imageSize, flags: h.flags,
            flagNames: h.flags.names, version: h.version)
        func area(_ tlvs: [McuBootTLV], protected: Bool, offset: Int, size: Int) -> TLVArea {
            TLVArea(
                isProtected: protected, offset: offset,
                magic: protected ? McuBootTLVArea.protectedMagic : McuBootTLVArea.unprotectedMagic, size: size,
                tlvs: tlvs.map { TLV(offset: $0.offset, type: $0.type, length: $0.value.count, value: $0.value) })
        }
        let protectedStart = image.payloadRange.upperBound
        protectedArea = h.protectedTLVSize == 0
            ? nil : area(image.protectedTLVs, protected: true, offset: protectedStart, size: Int(h.protectedTLVSize))
        let unprotectedStart = image.hashedRange.upperBound
        unprotectedArea = area(
            image.unprotectedTLVs, protected: false, offset: unprotectedStart, size: image.endOffset - unprotectedStart)
        fileSize = image.bytes.count
        imageEnd = image.endOffset
        hashAlgorithm = image.hashAlgorithm
        hash = image.hash
        computedHash = image.computedHash()
        fileSHA256 = image.fileSHA256
        signatureKinds = image.signatures.map(\.kind)
        keyHash = image.signingKeyHash
        publicKey = image.unprotectedTLVs.first { $0.type == .publicKey }?.value
        securityCounter = image.securityCounter
        dependencies = image.dependencies
        trailer = McuBootImageTrailer(bytes: image.bytes, imageEnd: image.endOffset, flags: h.flags)
    }
}
