import Crypto

/// A parsed MCUboot image file: header, protected and unprotected TLV areas, hash and signatures.
///
/// Parsing checks the structure (magic, sizes, TLV areas inside the file, one hash TLV of the
/// right length) and refuses anything else with a typed ``McuBootError``; call ``verifyHash()``
/// (and `verifySignature(publicKey:)`) to check the contents.
public struct McuBootImage: Sendable, Hashable {
    /// The whole file, including any bytes after the TLV areas (e.g. slot padding).
    public let bytes: [UInt8]
    /// The parsed 32-byte header.
    public let header: McuBootImageHeader
    /// The records of the protected TLV area (covered by the hash); empty if there is none.
    public let protectedTLVs: [McuBootTLV]
    /// The records of the unprotected TLV area (hash, key, signatures).
    public let unprotectedTLVs: [McuBootTLV]
    /// The image hash stored in the unprotected area: the SHA-256 TLV (0x10), else SHA-384 (0x11),
    /// else SHA-512 (0x12).
    public let hash: [UInt8]
    /// Which digest ``hash`` is.
    public let hashAlgorithm: McuBootHashAlgorithm
    /// SHA-256 of the whole file: what an SMP image upload carries in its `sha` field.
    public let fileSHA256: [UInt8]
    /// Offset one past the end of the unprotected TLV area; bytes after it are not part of the image.
    public let endOffset: Int

    /// Parses an MCUboot image file.
    ///
    /// Throws when the bytes are not a well-formed image; never traps on malformed input.
    public init(bytes: [UInt8]) throws(McuBootError) {
        let header = try McuBootImageHeader(parsing: bytes)
        let headerSize = Int(header.headerSize)
        guard headerSize <= bytes.count else {
            throw .headerSizePastEnd(headerSize: headerSize, fileSize: bytes.count)
        }
        // In 64 bits so that a huge ih_img_size cannot overflow on a 32-bit platform.
        let claimedEnd = UInt64(headerSize) + UInt64(header.imageSize)
        guard claimedEnd <= UInt64(bytes.count) else {
            throw .imageSizePastEnd(payloadEnd: Int(clamping: claimedEnd), fileSize: bytes.count)
        }
        let payloadEnd = Int(claimedEnd)
        var offset = payloadEnd
        var protectedTLVs: [McuBootTLV] = []
        if header.protectedTLVSize > 0 {
            let area = try McuBootTLVArea.parse(
                bytes, at: offset, magic: McuBootTLVArea.protectedMagic, expectedSize: header.protectedTLVSize)
            protectedTLVs = area.tlvs
            offset += area.size
        }
        let area = try McuBootTLVArea.parse(
            bytes, at: offset, magic: McuBootTLVArea.unprotectedMagic, expectedSize: nil)
        // SHA-256 first (the one Zephyr reports), else SHA-384, else SHA-512; exactly one of that type.
        guard let algorithm = McuBootHashAlgorithm.allCases.first(where: { algorithm in
            area.tlvs.contains { $0.type == algorithm.tlvType }
        }) else { throw .missingHash }
        let hashTLVs = area.tlvs.filter { $0.type == algorithm.tlvType }
        guard hashTLVs.count == 1, let hashTLV = hashTLVs.first else { throw .multipleHashes(hashTLVs.map(\.type)) }
        guard hashTLV.value.count == algorithm.digestSize else {
            throw .badHashLength(type: hashTLV.type, length: hashTLV.value.count)
        }
        self.bytes = bytes
        self.header = header
        self.protectedTLVs = protectedTLVs
        self.unprotectedTLVs = area.tlvs
        self.hash = hashTLV.value
        self.hashAlgorithm = algorithm
        self.fileSHA256 = Array(SHA256.hash(data: bytes))
        self.endOffset = offset + area.size
    }

    /// The image version from the header.
    public var version: McuBootVersion { header.version }

    /// The header flags.
    public var flags: McuBootImageFlags { header.flags }

    /// True unless the header sets `IMAGE_F_NON_BOOTABLE` (what `image list` reports as `bootable`).
    public var isBootable: Bool { !header.flags.contains(.nonBootable) }

    /// The byte range of the application payload in ``bytes``.
    public var payloadRange: Range<Int> {
        Int(header.headerSize)..<(Int(header.headerSize) + Int(header.imageSize))
    }

    /// The bytes the image hash covers: header, padding, payload and protected TLV area.
    public var hashedRange: Range<Int> {
        0..<(payloadRange.upperBound + Int(header.protectedTLVSize))
    }

    /// Every record of both areas, protected first.
    public var tlvs: [McuBootTLV] { protectedTLVs + unprotectedTLVs }

    /// The records of `type` in both areas, protected first.
    public func tlvs(ofType type: McuBootTLVType) -> [McuBootTLV] {
        tlvs.filter { $0.type == type }
    }

    /// The signatures in the unprotected area, in file order.
    public var signatures: [McuBootSignature] {
        unprotectedTLVs.compactMap { tlv in
            McuBootSignatureKind(tlvType: tlv.type).map { McuBootSignature(kind: $0, value: tlv.value) }
        }
    }

    /// The protected security counter (TLV 0x50), if present with its 4-byte value.
    public var securityCounter: UInt32? {
        protectedTLVs.first { $0.type == .securityCounter && $0.value.count == 4 }?.value.le32(at: 0)
    }

    /// The protected image dependencies (TLV 0x40) that decode.
    public var dependencies: [McuBootImageDependency] {
        protectedTLVs.filter { $0.type == .dependency }.compactMap { McuBootImageDependency(tlvValue: $0.value) }
    }
}
