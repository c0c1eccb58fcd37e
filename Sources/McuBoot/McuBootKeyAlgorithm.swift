/// The signature algorithms whose images this module can verify and sign.
public enum McuBootKeyAlgorithm: Sendable, Hashable, CustomStringConvertible {
    /// ECDSA on P-256 over the SHA-256 image hash (imgtool `ecdsa-p256`, TLV 0x22).
    case ecdsaP256
    /// Ed25519 with the image hash bytes as the message (imgtool `ed25519`, TLV 0x24).
    case ed25519

    /// The signature TLV kind this algorithm produces.
    public var signatureKind: McuBootSignatureKind {
        switch self {
        case .ecdsaP256: .ecdsa
        case .ed25519: .ed25519
        }
    }

    /// `"ECDSA P-256"` or `"Ed25519"`.
    public var description: String {
        switch self {
        case .ecdsaP256: "ECDSA P-256"
        case .ed25519: "Ed25519"
        }
    }
}
