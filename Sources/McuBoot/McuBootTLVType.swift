/// The type of a TLV in an MCUboot image's TLV areas (`IMAGE_TLV_*` in MCUboot's `image.h`).
///
/// Types this module does not know keep their number; `name` is then nil.
public struct McuBootTLVType: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 16-bit type number (`it_type`).
    public var rawValue: UInt16

    /// Creates a TLV type from its number.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Creates a TLV type from its number.
    public init(_ rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 0x01 `KEYHASH`: hash of the signing public key.
    public static let keyHash = McuBootTLVType(0x01)
    /// 0x02 `PUBKEY`: the signing public key itself.
    public static let publicKey = McuBootTLVType(0x02)
    /// 0x10 `SHA256`: SHA-256 of header, payload and protected TLVs (32 bytes).
    public static let sha256 = McuBootTLVType(0x10)
    /// 0x11 `SHA384`: SHA-384 of the same bytes (48 bytes).
    public static let sha384 = McuBootTLVType(0x11)
    /// 0x12 `SHA512`: SHA-512 of the same bytes (64 bytes).
    public static let sha512 = McuBootTLVType(0x12)
    /// 0x20 `RSA2048`: RSA-2048 PSS signature.
    public static let rsa2048PSS = McuBootTLVType(0x20)
    /// 0x21 `ECDSA224`: ECDSA P-224 signature (no longer supported by MCUboot).
    public static let ecdsa224 = McuBootTLVType(0x21)
    /// 0x22 `ECDSASIG`: ECDSA signature, DER (P-256, or P-384 with a SHA-384 hash).
    public static let ecdsaSignature = McuBootTLVType(0x22)
    /// 0x23 `RSA3072`: RSA-3072 PSS signature.
    public static let rsa3072PSS = McuBootTLVType(0x23)
    /// 0x24 `ED25519`: Ed25519 signature.
    public static let ed25519 = McuBootTLVType(0x24)
    /// 0x25 `SIG_PURE`: the signature is over the image itself, not its hash.
    public static let signaturePure = McuBootTLVType(0x25)
    /// 0x30 `ENCRSA2048`: image key encrypted with RSA-OAEP.
    public static let encryptedRSA2048 = McuBootTLVType(0x30)
    /// 0x31 `ENCKW`: image key wrapped with AES key-wrap.
    public static let encryptedKeyWrap = McuBootTLVType(0x31)
    /// 0x32 `ENCEC256`: image key encrypted with ECIES P-256.
    public static let encryptedEC256 = McuBootTLVType(0x32)
    /// 0x33 `ENCX25519`: image key encrypted with ECIES X25519.
    public static let encryptedX25519 = McuBootTLVType(0x33)
    /// 0x34 `ENCX25519_SHA512`: image key encrypted with ECIES X25519 and HMAC-SHA512.
    public static let encryptedX25519SHA512 = McuBootTLVType(0x34)
    /// 0x40 `DEPENDENCY`: minimum version of another image (protected).
    public static let dependency = McuBootTLVType(0x40)
    /// 0x50 `SEC_CNT`: security counter, 32 bits (protected).
    public static let securityCounter = McuBootTLVType(0x50)
    /// 0x60 `BOOT_RECORD`: measured-boot record, CBOR (protected).
    public static let bootRecord = McuBootTLVType(0x60)
    /// 0x70 `DECOMP_SIZE`: size of the decompressed image.
    public static let decompressedSize = McuBootTLVType(0x70)
    /// 0x71 `DECOMP_SHA`: hash of the decompressed image.
    public static let decompressedSHA = McuBootTLVType(0x71)
    /// 0x72 `DECOMP_SIGNATURE`: signature of the decompressed image.
    public static let decompressedSignature = McuBootTLVType(0x72)
    /// 0x73 `COMP_DEC_SIZE`: size of the compressed, decrypted image.
    public static let compressedDecryptedSize = McuBootTLVType(0x73)
    /// 0x74 `UUID_VID`: vendor UUID (16 bytes, protected).
    public static let vendorUUID = McuBootTLVType(0x74)
    /// 0x75 `UUID_CID`: image class UUID (16 bytes, protected).
    public static let classUUID = McuBootTLVType(0x75)

    private static let names: [UInt16: String] = [
        0x01: "KEYHASH", 0x02: "PUBKEY", 0x10: "SHA256", 0x11: "SHA384", 0x12: "SHA512",
        0x20: "RSA2048", 0x21: "ECDSA224", 0x22: "ECDSASIG", 0x23: "RSA3072", 0x24: "ED25519",
        0x25: "SIG_PURE", 0x30: "ENCRSA2048", 0x31: "ENCKW", 0x32: "ENCEC256", 0x33: "ENCX25519",
        0x34: "ENCX25519_SHA512", 0x40: "DEPENDENCY", 0x50: "SEC_CNT", 0x60: "BOOT_RECORD",
        0x70: "DECOMP_SIZE", 0x71: "DECOMP_SHA", 0x72: "DECOMP_SIGNATURE", 0x73: "COMP_DEC_SIZE",
        0x74: "UUID_VID", 0x75: "UUID_CID",
    ]

    /// The name imgtool uses for this type (`"SHA256"`, `"SEC_CNT"`, ...), or nil if unknown.
    public var name: String? { Self.names[rawValue] }

    /// The name and number, e.g. `SHA256 (0x10)`, or `unknown (0x00a0)`.
    public var description: String {
        "\(name ?? "unknown") (\(hex(rawValue, width: rawValue > 0xff ? 4 : 2)))"
    }

    /// Orders by type number.
    public static func < (lhs: McuBootTLVType, rhs: McuBootTLVType) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
