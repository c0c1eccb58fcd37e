/// Makes an MCUboot image from a payload, byte-for-byte as `imgtool create` does for the same inputs.
///
/// Models: `--version`, `--header-size` with `--pad-header` (padding byte ``headerPadding``),
/// `--load-addr`, `--rom-fixed`, `--non-bootable`, `--security-counter`, `--dependencies`,
/// `--vid`/`--cid` (as raw 16-byte UUIDs), `--custom-tlv`, `--sha`, `--key` with
/// `--public-key-format` (ECDSA P-256 and Ed25519), and `--pad` with the trailer options
/// (``McuBootSlotPadding``). `--align` alone does not change an unpadded image.
///
/// Not modelled: encryption (`--encrypt`, `--clear`, `--encrypt-keylen`, `--save-enctlv`),
/// compression, `--boot-record`, `--endian big`, Intel HEX output (`--hex-addr`), `--pad-sig`,
/// `--pure`, fixed signatures (`--fix-sig`), `--vector-to-sign`, RSA and P-384 keys, and
/// UUIDs given as names (imgtool derives those with UUIDv5).
public struct McuBootImageBuilder: Sendable {
    /// How a signed image identifies its key (`--public-key-format`).
    public enum PublicKeyFormat: Sendable, Hashable {
        /// A `KEYHASH` TLV (0x01) with the hash of the public key (imgtool's default).
        case hash
        /// A `PUBKEY` TLV (0x02) with the whole DER public key.
        case full
    }

    /// The application binary, without header space.
    public var payload: [UInt8]
    /// The version written into the header (`--version`).
    public var version: McuBootVersion
    /// `ih_hdr_size` (`--header-size`): 32 or more; the header is padded up to it.
    public var headerSize: Int = 0x20
    /// The byte the header is padded with. imgtool `--pad-header` pads with the erased value
    /// (0xff, or 0 with `--erased-val 0`); an input that already begins with `headerSize` zero
    /// bytes and no `--pad-header` is the same as 0 here (pass the payload without those bytes).
    public var headerPadding: UInt8 = 0xff
    /// RAM load address (`--load-addr`); a non-zero value sets `RAM_LOAD`.
    public var ramLoadAddress: UInt32?
    /// Fixed flash address (`--rom-fixed`); a non-zero value sets `ROM_FIXED`.
    public var romFixedAddress: UInt32?
    /// False sets `NON_BOOTABLE` (`--non-bootable`).
    public var isBootable = true
    /// A protected `SEC_CNT` TLV (`--security-counter`); see `McuBootVersion.defaultSecurityCounter`
    /// for the value of `--security-counter auto`.
    public var securityCounter: UInt32?
    /// Protected `DEPENDENCY` TLVs (`--dependencies`).
    public var dependencies: [McuBootImageDependency] = []
    /// A protected `UUID_VID` TLV with these 16 bytes (`--vid` given as a raw UUID).
    public var vendorUUID: [UInt8]?
    /// A protected `UUID_CID` TLV with these 16 bytes (`--cid` given as a raw UUID).
    public var classUUID: [UInt8]?
    /// Protected custom TLVs (`--custom-tlv`), types 0xa0–0xfffe, in order.
    public var customTLVs: [McuBootTLV] = []
    /// The image hash (`--sha`); ECDSA P-256 keys need SHA-256, Ed25519 SHA-256 or SHA-512.
    public var hashAlgorithm: McuBootHashAlgorithm = .sha256
    /// Signs the image when set (`--key`).
    public var signingKey: McuBootSigningKey?
    /// How a signed image identifies its key.
    public var publicKeyFormat: PublicKeyFormat = .hash
    /// Pads the image to a slot with a trailer when set (`--pad`, `--test`, `--confirm`).
    public var slotPadding: McuBootSlotPadding?

    /// Creates a builder for an unsigned, unpadded image with a 32-byte header.
    public init(payload: [UInt8], version: McuBootVersion) {
        self.payload = payload
        self.version = version
    }

    /// The image file's bytes.
    public func build() throws(McuBootError) -> [UInt8] {
        guard (McuBootImageHeader.size...0xffff).contains(headerSize) else {
            throw .invalidBuilderParameter("headerSize must be between 0x20 and 0xffff, not \(hex(headerSize))")
        }
        guard UInt64(payload.count) <= UInt64(UInt32.max) else {
            throw .invalidBuilderParameter("the payload of \(payload.count) bytes does not fit a 32-bit image size")
        }
        let ramLoad = ramLoadAddress ?? 0
        let romFixed = romFixedAddress ?? 0
        guard ramLoad == 0 || romFixed == 0 else {
            throw .invalidBuilderParameter("a RAM load address and a ROM-fixed address cannot both be set")
        }
        if let signingKey {
            let allowed: [McuBootHashAlgorithm] = signingKey.algorithm == .ecdsaP256 ? [.sha256] : [.sha256, .sha512]
            guard allowed.contains(hashAlgorithm) else {
                throw .invalidBuilderParameter("a \(signingKey.algorithm) key cannot be used with \(hashAlgorithm)")
            }
        }

        let protectedTLVs = try makeProtectedTLVs()
        let protectedArea = McuBootTLVArea.serialize(protectedTLVs, magic: McuBootTLVArea.protectedMagic)
        guard protectedArea.count <= 0xffff else {
            throw .invalidBuilderParameter("the protected TLVs take \(protectedArea.count) bytes, more than 65535")
        }

        var flags: McuBootImageFlags = []
        if ramLoad != 0 { flags.insert(.ramLoad) }
        if romFixed != 0 { flags.insert(.romFixed) }
        if !isBootable { flags.insert(.nonBootable) }
        let header = McuBootImageHeader(
            loadAddress: romFixed != 0 ? romFixed : ramLoad, headerSize: UInt16(headerSize),
            protectedTLVSize: UInt16(protectedArea.count), imageSize: UInt32(payload.count),
            flags: flags, version: version)

        var image = header.bytes
        image.reserveCapacity(headerSize + payload.count + protectedArea.count + 256)
        image.append(contentsOf: repeatElement(headerPadding, count: headerSize - McuBootImageHeader.size))
        image.append(contentsOf: payload)
        image.append(contentsOf: protectedArea)

        let digest = hashAlgorithm.digest(image[...])
        var unprotected = [McuBootTLV(type: hashAlgorithm.tlvType, value: digest)]
        if let signingKey {
            let publicKey = signingKey.publicKey
            switch publicKeyFormat {
            case .hash:
                unprotected.append(McuBootTLV(type: .keyHash, value: publicKey.keyHash(using: hashAlgorithm)))
            case .full:
                unprotected.append(McuBootTLV(type: .publicKey, value: publicKey.publicKeyBytes))
            }
            let signature = try signingKey.sign(hashedBytes: image[...], digest: digest)
            unprotected.append(McuBootTLV(type: signingKey.algorithm.signatureKind.tlvType, value: signature))
        }
        image.append(contentsOf: McuBootTLVArea.serialize(unprotected, magic: McuBootTLVArea.unprotectedMagic))

        if let slotPadding {
            image = try slotPadding.pad(image)
        }
        return image
    }

    /// Builds the image and parses it back.
    public func buildImage() throws(McuBootError) -> McuBootImage {
        try McuBootImage(bytes: build())
    }

    /// The protected TLVs in imgtool's order: security counter, dependencies, UUIDs, custom.
    private func makeProtectedTLVs() throws(McuBootError) -> [McuBootTLV] {
        var tlvs: [McuBootTLV] = []
        if let securityCounter {
            var value: [UInt8] = []
            value.appendLE32(securityCounter)
            tlvs.append(McuBootTLV(type: .securityCounter, value: value))
        }
        for dependency in dependencies {
            tlvs.append(McuBootTLV(type: .dependency, value: dependency.tlvValue))
        }
        for (type, uuid) in [(McuBootTLVType.vendorUUID, vendorUUID), (.classUUID, classUUID)] {
            guard let uuid else { continue }
            guard uuid.count == 16 else {
                throw .invalidBuilderParameter("\(type) must be 16 bytes, not \(uuid.count)")
            }
            tlvs.append(McuBootTLV(type: type, value: uuid))
        }
        var seen = Set<McuBootTLVType>()
        for tlv in customTLVs {
            guard (0xa0...0xfffe).contains(tlv.type.rawValue) else {
                throw .invalidBuilderParameter("custom TLV type \(hex(tlv.type.rawValue, width: 4)) is outside 0x00a0–0xfffe")
            }
            guard seen.insert(tlv.type).inserted else {
                throw .invalidBuilderParameter("custom TLV \(hex(tlv.type.rawValue, width: 4)) is given twice")
            }
            guard tlv.value.count <= 0xffff else {
                throw .invalidBuilderParameter("custom TLV \(hex(tlv.type.rawValue, width: 4)) is longer than 65535 bytes")
            }
            tlvs.append(McuBootTLV(type: tlv.type, value: tlv.value))
        }
        return tlvs
    }
}
