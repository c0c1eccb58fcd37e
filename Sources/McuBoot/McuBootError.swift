import Hex

/// Why an MCUboot image was refused, or why building or verifying one failed.
///
/// Each case's ``description`` names the problem and what to do about it.
public enum McuBootError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is shorter than the 32-byte image header.
    case tooShort(size: Int)
    /// The first 4 bytes are not `IMAGE_MAGIC` (0x96f3b83d).
    case badMagic(found: UInt32)
    /// `ih_hdr_size` is smaller than the 32-byte header itself.
    case headerSizeTooSmall(UInt16)
    /// `ih_hdr_size` points past the end of the file.
    case headerSizePastEnd(headerSize: Int, fileSize: Int)
    /// `ih_hdr_size + ih_img_size` points past the end of the file.
    case imageSizePastEnd(payloadEnd: Int, fileSize: Int)
    /// No room for a 4-byte TLV info header at `offset`.
    case missingTLVInfo(offset: Int, fileSize: Int)
    /// The TLV info header at `offset` has the wrong magic (0x6908 protected, 0x6907 unprotected).
    case badTLVMagic(found: UInt16, expected: UInt16, offset: Int)
    /// The protected TLV area's size differs from `ih_protect_tlv_size`.
    case protectedTLVSizeMismatch(header: UInt16, tlvInfo: UInt16)
    /// A TLV area claims a total size smaller than its own 4-byte info header.
    case tlvAreaTooSmall(offset: Int, size: Int)
    /// A TLV area's total size runs past the end of the file.
    case tlvAreaOverrun(offset: Int, areaSize: Int, fileSize: Int)
    /// A TLV's length runs past the end of its area.
    case tlvLengthOverrun(type: McuBootTLVType, offset: Int, length: Int, areaEnd: Int)
    /// Fewer than 4 bytes are left in a TLV area for the next TLV header.
    case truncatedTLV(offset: Int, areaEnd: Int)
    /// The unprotected area has no SHA-256/384/512 TLV.
    case missingHash
    /// The unprotected area has more than one TLV of the hash type in use (Zephyr's `TLV_MULTIPLE_HASHES_FOUND`).
    case multipleHashes([McuBootTLVType])
    /// The hash TLV's length does not match its algorithm.
    case badHashLength(type: McuBootTLVType, length: Int)
    /// The recomputed hash differs from the one stored in the image.
    case hashMismatch(expected: [UInt8], actual: [UInt8])
    /// Signature verification was asked for, but the image is not signed.
    case missingSignature
    /// The image's signatures are of other kinds than every key given (a key of another algorithm).
    case signatureKindMismatch(keys: [McuBootKeyAlgorithm], image: [McuBootSignatureKind])
    /// The image names a signing key (its `KEYHASH` TLV, or the hash of its `PUBKEY` TLV) that none
    /// of the keys given is; `keyHashes` are theirs, computed the same way.
    case keyMismatch(imageKeyHash: [UInt8], keyHashes: [[UInt8]])
    /// A signature TLV is shorter than its algorithm needs (`expected` bytes).
    case truncatedSignature(kind: McuBootSignatureKind, length: Int, expected: Int)
    /// The signature does not verify with the given public key.
    case signatureInvalid
    /// The image's signature is of a kind this module cannot verify (ECDSA P-224, ECDSA P-384).
    case unsupportedSignature(McuBootSignatureKind)
    /// A key could not be read (format, curve or encoding not supported).
    case invalidKey(String)
    /// A builder setting is out of range or not supported by the image format.
    case invalidBuilderParameter(String)

    /// A message that names the problem and what to do about it.
    public var description: String {
        switch self {
        case .tooShort(let size):
            return "Not an MCUboot image: the file has \(size) bytes, fewer than the 32-byte image header. "
                + "Check that you picked the signed image (e.g. zephyr.signed.bin), not an empty or truncated file."
        case .badMagic(let found) where found == McuBootImageHeader.legacyMagic:
            return "Legacy MCUboot v1 image (magic 0x96f3b83c), which current MCUboot refuses. "
                + "Re-create it with a current imgtool."
        case .badMagic(let found):
            return "Not an MCUboot image: the header magic is \(hex(found, width: 8)), expected 0x96f3b83d. "
                + "Upload the signed image (e.g. zephyr.signed.bin or app_update.bin), not the raw zephyr.bin or a .hex file."
        case .headerSizeTooSmall(let size):
            return "Corrupt MCUboot image: ih_hdr_size is \(hex(size, width: 4)), smaller than the 32-byte header. "
                + "Re-create the image with imgtool (--header-size 0x20 or larger)."
        case .headerSizePastEnd(let headerSize, let fileSize):
            return "Truncated MCUboot image: the header size \(hex(headerSize, width: 4)) reaches past the end "
                + "of the \(fileSize)-byte file. The file is cut short; copy or build it again."
        case .imageSizePastEnd(let payloadEnd, let fileSize):
            return "Truncated MCUboot image: header size plus image size (\(payloadEnd) bytes) reach past the end "
                + "of the \(fileSize)-byte file. The file is cut short; copy or build it again."
        case .missingTLVInfo(let offset, let fileSize):
            return "MCUboot image has no TLV area: expected a TLV info header at offset \(hex(offset, width: 4)) "
                + "but the file has \(fileSize) bytes. The image is unsigned/unhashed or truncated; run imgtool sign."
        case .badTLVMagic(let found, let expected, let offset):
            let which = expected == McuBootTLVArea.protectedMagic ? "protected" : "unprotected"
            return "Corrupt MCUboot image: the \(which) TLV area at offset \(hex(offset, width: 4)) starts with "
                + "\(hex(found, width: 4)), expected \(hex(expected, width: 4)). The header sizes do not match the "
                + "contents; re-create the image with imgtool."
        case .protectedTLVSizeMismatch(let header, let tlvInfo):
            return "Corrupt MCUboot image: the header's protected TLV size is \(header) bytes but the protected "
                + "area says \(tlvInfo). Re-create the image with imgtool."
        case .tlvAreaTooSmall(let offset, let size):
            return "Corrupt MCUboot image: the TLV area at offset \(hex(offset, width: 4)) claims \(size) bytes, "
                + "less than its own 4-byte info header. Re-create the image with imgtool."
        case .tlvAreaOverrun(let offset, let areaSize, let fileSize):
            return "Truncated MCUboot image: the TLV area at offset \(hex(offset, width: 4)) is \(areaSize) bytes "
                + "long and runs past the end of the \(fileSize)-byte file. Copy or build the image again."
        case .tlvLengthOverrun(let type, let offset, let length, let areaEnd):
            return "Corrupt MCUboot image: TLV \(type) at offset \(hex(offset, width: 4)) claims \(length) bytes, "
                + "past the end of its TLV area at \(hex(areaEnd, width: 4)). Re-create the image with imgtool."
        case .truncatedTLV(let offset, let areaEnd):
            return "Corrupt MCUboot image: a TLV header at offset \(hex(offset, width: 4)) is cut off by the end of "
                + "its TLV area at \(hex(areaEnd, width: 4)). Re-create the image with imgtool."
        case .missingHash:
            return "MCUboot image has no SHA-256/384/512 TLV, so the device cannot identify or check it. "
                + "Create the image with imgtool sign/create (which always adds the hash)."
        case .multipleHashes(let types):
            return "MCUboot image has \(types.count) hash TLVs of type \(types.first.map(\.description) ?? "?"); "
                + "MCUboot and Zephyr accept exactly one. Re-create the image with imgtool."
        case .badHashLength(let type, let length):
            return "Corrupt MCUboot image: hash TLV \(type) is \(length) bytes long, which does not fit its "
                + "algorithm. Re-create the image with imgtool."
        case .hashMismatch(let expected, let actual):
            return "MCUboot image hash mismatch: the image says \(expected.hexString) but its contents hash to "
                + "\(actual.hexString). The file was altered or corrupted after signing; build and sign it again."
        case .missingSignature:
            return "MCUboot image is not signed (no signature TLV). Sign it with imgtool sign --key, or skip "
                + "signature verification."
        case .signatureKindMismatch(let keys, let image):
            let kinds = image.map(\.description).joined(separator: ", ")
            let names = keys.map(\.description).joined(separator: ", ")
            let given = keys.isEmpty ? "no key was given" : keys.count == 1 ? "the key given is \(names)" : "the keys given are \(names)"
            return "The image is signed with \(kinds), but \(given). Use the public key of the key pair the "
                + "image was signed with."
        case .keyMismatch(let imageKeyHash, let keyHashes):
            let given = keyHashes.count == 1
                ? "the key given (key hash \(keyHashes[0].hexString))"
                : "any of the \(keyHashes.count) keys given (key hashes \(keyHashes.map(\.hexString).joined(separator: ", ")))"
            return "The image was signed with the key whose hash is \(imageKeyHash.hexString), not with \(given). "
                + "Use the public key of the key pair the image was signed with."
        case .truncatedSignature(let kind, let length, let expected):
            return "Corrupt MCUboot image: its \(kind) signature has \(length) bytes, fewer than the \(expected) "
                + "it needs. The file was cut or altered after signing; sign it again."
        case .signatureInvalid:
            return "MCUboot image signature does not verify with this public key: the image was signed with "
                + "another key, or altered after signing. Check the key, or sign the image again."
        case .unsupportedSignature(let kind):
            return "Cannot verify the image's \(kind) signature: only ECDSA P-256 (with SHA-256), Ed25519, "
                + "RSA-2048 and RSA-3072 are supported. Verify it with imgtool verify --key instead."
        case .invalidKey(let reason):
            return "Cannot use the key: \(reason). Give an ECDSA P-256, Ed25519, RSA-2048 or RSA-3072 key, PEM or "
                + "DER, public or private (imgtool keygen, or imgtool getpub -e pem)."
        case .invalidBuilderParameter(let reason):
            return "Cannot build the MCUboot image: \(reason)."
        }
    }
}
