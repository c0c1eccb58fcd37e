import Crypto

/// A public key to verify an MCUboot image signature with: ECDSA P-256 or Ed25519.
public struct McuBootPublicKey: Sendable, Hashable {
    /// Which algorithm the key is for.
    public let algorithm: McuBootKeyAlgorithm
    /// The key bytes: the 65-byte uncompressed point (X9.63) for P-256, 32 bytes for Ed25519.
    public let rawRepresentation: [UInt8]

    /// Wraps a swift-crypto P-256 signing public key.
    public init(_ key: P256.Signing.PublicKey) {
        algorithm = .ecdsaP256
        rawRepresentation = Array(key.x963Representation)
    }

    /// Wraps a swift-crypto Ed25519 public key.
    public init(_ key: Curve25519.Signing.PublicKey) {
        algorithm = .ed25519
        rawRepresentation = Array(key.rawRepresentation)
    }

    /// Creates a key from its raw bytes; throws when they are not a valid key of `algorithm`.
    public init(algorithm: McuBootKeyAlgorithm, rawRepresentation: [UInt8]) throws(McuBootError) {
        switch algorithm {
        case .ecdsaP256: self.init(try Self.p256Key(rawRepresentation))
        case .ed25519: self.init(try Self.ed25519Key(rawRepresentation))
        }
    }

    /// The swift-crypto P-256 key of an uncompressed point.
    static func p256Key(_ raw: [UInt8]) throws(McuBootError) -> P256.Signing.PublicKey {
        guard let key = try? P256.Signing.PublicKey(x963Representation: raw) else {
            throw .invalidKey("the bytes are not an uncompressed P-256 point")
        }
        return key
    }

    /// The swift-crypto Ed25519 key of 32 raw bytes.
    static func ed25519Key(_ raw: [UInt8]) throws(McuBootError) -> Curve25519.Signing.PublicKey {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else {
            throw .invalidKey("an Ed25519 public key has 32 bytes, not \(raw.count)")
        }
        return key
    }

    /// Reads a PEM key as imgtool writes it: a public key (`imgtool getpub -e pem`) or an
    /// unencrypted private key (`imgtool keygen`), whose public half is taken.
    public init(pemRepresentation pem: String) throws(McuBootError) {
        let block = try PEMBlock(parsing: pem)
        switch block.label {
        case "PUBLIC KEY":
            if let raw = KeyDER.key32(block.der, prefix: KeyDER.ed25519SPKIPrefix) {
                try self.init(algorithm: .ed25519, rawRepresentation: raw)
            } else if let key = try? P256.Signing.PublicKey(derRepresentation: block.der) {
                self.init(key)
            } else {
                throw .invalidKey("the public key is neither ECDSA P-256 nor Ed25519 (RSA and P-384 are not supported)")
            }
        case "PRIVATE KEY", "EC PRIVATE KEY":
            self = try McuBootSigningKey(pemRepresentation: pem).publicKey
        case "ENCRYPTED PRIVATE KEY":
            throw .invalidKey("the private key is password-protected; export its public key with imgtool getpub -e pem")
        default:
            throw .invalidKey("a PEM block labelled \(block.label) is not a key")
        }
    }

    /// The signature TLV kind made with this key.
    public var signatureKind: McuBootSignatureKind { algorithm.signatureKind }

    /// The DER SubjectPublicKeyInfo: the bytes imgtool embeds with `--public-key-format full`
    /// (TLV 0x02) and hashes for the `KEYHASH` TLV (0x01).
    public var subjectPublicKeyInfo: [UInt8] {
        switch algorithm {
        case .ecdsaP256: KeyDER.p256SPKIPrefix + rawRepresentation
        case .ed25519: KeyDER.ed25519SPKIPrefix + rawRepresentation
        }
    }

    /// The `KEYHASH` TLV value for this key: the digest of ``subjectPublicKeyInfo`` with the
    /// image's hash algorithm.
    public func keyHash(using algorithm: McuBootHashAlgorithm = .sha256) -> [UInt8] {
        algorithm.digest(subjectPublicKeyInfo[...])
    }
}
