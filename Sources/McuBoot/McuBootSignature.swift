/// The kind of signature an MCUboot image carries, by TLV type.
public enum McuBootSignatureKind: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// RSA-2048 with PSS padding (TLV 0x20).
    case rsa2048PSS
    /// ECDSA P-224 (TLV 0x21, no longer supported by MCUboot).
    case ecdsaP224
    /// ECDSA, DER-encoded (TLV 0x22): P-256 with SHA-256, or P-384 with SHA-384.
    case ecdsa
    /// RSA-3072 with PSS padding (TLV 0x23).
    case rsa3072PSS
    /// Ed25519 (TLV 0x24).
    case ed25519

    /// The TLV type that carries this kind of signature.
    public var tlvType: McuBootTLVType {
        switch self {
        case .rsa2048PSS: .rsa2048PSS
        case .ecdsaP224: .ecdsa224
        case .ecdsa: .ecdsaSignature
        case .rsa3072PSS: .rsa3072PSS
        case .ed25519: .ed25519
        }
    }

    /// The signature kind carried by TLV `type`, or nil if `type` is not a signature.
    public init?(tlvType type: McuBootTLVType) {
        guard let match = Self.allCases.first(where: { $0.tlvType == type }) else { return nil }
        self = match
    }

    /// A short human name, e.g. `"ECDSA"` or `"Ed25519"`.
    public var description: String {
        switch self {
        case .rsa2048PSS: "RSA-2048-PSS"
        case .ecdsaP224: "ECDSA P-224"
        case .ecdsa: "ECDSA"
        case .rsa3072PSS: "RSA-3072-PSS"
        case .ed25519: "Ed25519"
        }
    }
}

/// A signature found in an image's unprotected TLV area.
public struct McuBootSignature: Sendable, Hashable {
    /// What kind of signature it is.
    public var kind: McuBootSignatureKind
    /// The signature bytes as stored (DER for ECDSA, 64 bytes for Ed25519).
    public var value: [UInt8]

    /// Creates a signature record.
    public init(kind: McuBootSignatureKind, value: [UInt8]) {
        self.kind = kind
        self.value = value
    }
}
