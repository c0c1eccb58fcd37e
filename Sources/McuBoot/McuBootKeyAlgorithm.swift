/// The signature algorithms of MCUboot images this module can verify (and, for ECDSA P-256 and
/// Ed25519, sign).
public enum McuBootKeyAlgorithm: Sendable, Hashable, CustomStringConvertible {
    /// ECDSA on P-256 over the SHA-256 image hash (imgtool `ecdsa-p256`, TLV 0x22).
    case ecdsaP256
    /// Ed25519 with the image hash bytes as the message (imgtool `ed25519`, TLV 0x24).
    case ed25519
    /// RSA-2048, PSS with SHA-256, MGF1 and a 32-byte salt (imgtool `rsa-2048`, TLV 0x20).
    case rsa2048
    /// RSA-3072, PSS with SHA-256, MGF1 and a 32-byte salt (imgtool `rsa-3072`, TLV 0x23).
    case rsa3072

    /// The signature TLV kind this algorithm produces.
    public var signatureKind: McuBootSignatureKind {
        switch self {
        case .ecdsaP256: .ecdsa
        case .ed25519: .ed25519
        case .rsa2048: .rsa2048PSS
        case .rsa3072: .rsa3072PSS
        }
    }

    /// `"ECDSA P-256"`, `"Ed25519"`, `"RSA-2048"` or `"RSA-3072"`.
    public var description: String {
        switch self {
        case .ecdsaP256: "ECDSA P-256"
        case .ed25519: "Ed25519"
        case .rsa2048: "RSA-2048"
        case .rsa3072: "RSA-3072"
        }
    }
}
