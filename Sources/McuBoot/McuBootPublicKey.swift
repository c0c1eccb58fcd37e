import Crypto
import _CryptoExtras

/// A public key to verify MCUboot image signatures with: ECDSA P-256, Ed25519, RSA-2048 or RSA-3072.
///
/// Read one from a key file with ``init(keyFile:)`` (PEM or DER, public or private, as imgtool writes them).
public struct McuBootPublicKey: Sendable, Hashable {
    /// Which algorithm the key is for.
    public let algorithm: McuBootKeyAlgorithm
    /// The key bytes: the 65-byte uncompressed point (X9.63) for P-256, 32 bytes for Ed25519, the
    /// PKCS#1 `RSAPublicKey` DER for RSA.
    public let rawRepresentation: [UInt8]
    /// The DER SubjectPublicKeyInfo (what `imgtool getpub -e pem` writes, base64-encoded).
    public let subjectPublicKeyInfo: [UInt8]

    /// Wraps a swift-crypto P-256 signing public key.
    public init(_ key: P256.Signing.PublicKey) {
        algorithm = .ecdsaP256
        rawRepresentation = Array(key.x963Representation)
        subjectPublicKeyInfo = KeyDER.p256SPKIPrefix + rawRepresentation
    }

    /// Wraps a swift-crypto Ed25519 public key.
    public init(_ key: Curve25519.Signing.PublicKey) {
        algorithm = .ed25519
        rawRepresentation = Array(key.rawRepresentation)
        subjectPublicKeyInfo = KeyDER.ed25519SPKIPrefix + rawRepresentation
    }

    /// Wraps a swift-crypto RSA public key; throws unless it has 2048 or 3072 bits (what MCUboot verifies).
    public init(_ key: _RSA.Signing.PublicKey) throws(McuBootError) {
        switch key.keySizeInBits {
        case 2048: algorithm = .rsa2048
        case 3072: algorithm = .rsa3072
        case let bits: throw Self.unsupportedRSAKey(bits: bits)
        }
        rawRepresentation = Array(key.pkcs1DERRepresentation)
        subjectPublicKeyInfo = Array(key.derRepresentation)
    }

    /// Creates a key from its raw bytes (see ``rawRepresentation``); throws when they are not a
    /// valid key of `algorithm`.
    public init(algorithm: McuBootKeyAlgorithm, rawRepresentation: [UInt8]) throws(McuBootError) {
        switch algorithm {
        case .ecdsaP256: self.init(try Self.p256Key(rawRepresentation))
        case .ed25519: self.init(try Self.ed25519Key(rawRepresentation))
        case .rsa2048, .rsa3072:
            try self.init(try Self.rsaKey(rawRepresentation))
            guard self.algorithm == algorithm else {
                throw .invalidKey("the bytes are an \(self.algorithm) key, not \(algorithm)")
            }
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

    /// The swift-crypto RSA key of a PKCS#1 or SubjectPublicKeyInfo DER (any size; callers check it).
    /// The DER is checked with SwiftASN1 first (see `RSAPublicKeyDER`).
    static func rsaKey(_ der: [UInt8]) throws(McuBootError) -> _RSA.Signing.PublicKey {
        let notRSA = McuBootError.invalidKey("the bytes are not an RSA public key (PKCS#1 or SubjectPublicKeyInfo DER)")
        guard let (modulus, exponent) = RSAPublicKeyDER.components(der) else { throw notRSA }
        guard let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent) else {
            // swift-crypto refuses keys under 2048 bits without saying why; the size is the reason.
            let bits = Self.bitLength(modulus)
            throw bits < 2048 ? Self.unsupportedRSAKey(bits: bits) : notRSA
        }
        return key
    }

    /// The refusal of an RSA key of a size MCUboot does not verify.
    static func unsupportedRSAKey(bits: Int) -> McuBootError {
        .invalidKey("an RSA key of \(bits) bits cannot verify MCUboot images (RSA-2048 and RSA-3072 only)")
    }

    /// The number of significant bits of a big-endian unsigned integer.
    static func bitLength(_ bytes: ArraySlice<UInt8>) -> Int {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (bytes.endIndex - first - 1) * 8 + (8 - bytes[first].leadingZeroBitCount)
    }

    /// The signature TLV kind made with this key.
    public var signatureKind: McuBootSignatureKind { algorithm.signatureKind }

    /// The public key bytes as imgtool's `get_public_bytes()` gives them: the SubjectPublicKeyInfo
    /// for ECDSA and Ed25519, the PKCS#1 `RSAPublicKey` for RSA. `--public-key-format full` embeds
    /// them (TLV 0x02) and the `KEYHASH` TLV (0x01) is their digest.
    public var publicKeyBytes: [UInt8] {
        switch algorithm {
        case .ecdsaP256, .ed25519: subjectPublicKeyInfo
        case .rsa2048, .rsa3072: rawRepresentation
        }
    }

    /// The `KEYHASH` TLV value for this key: the digest of ``publicKeyBytes`` with the image's
    /// hash algorithm (as imgtool computes it).
    public func keyHash(using algorithm: McuBootHashAlgorithm = .sha256) -> [UInt8] {
        algorithm.digest(publicKeyBytes[...])
    }
}
