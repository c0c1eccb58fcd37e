import Crypto

/// A private key the ``McuBootImageBuilder`` signs images with: ECDSA P-256 or Ed25519 (RSA keys
/// verify, see ``McuBootPublicKey``, but do not sign here).
///
/// Holds the private key bytes in memory; meant for tests, simulators and development keys.
public struct McuBootSigningKey: Sendable {
    /// Which algorithm the key is for.
    public let algorithm: McuBootKeyAlgorithm
    /// The matching public key.
    public let publicKey: McuBootPublicKey
    /// The private scalar (P-256) or seed (Ed25519), 32 bytes.
    let privateBytes: [UInt8]

    /// Wraps a swift-crypto P-256 signing private key.
    public init(_ key: P256.Signing.PrivateKey) {
        algorithm = .ecdsaP256
        publicKey = McuBootPublicKey(key.publicKey)
        privateBytes = Array(key.rawRepresentation)
    }

    /// Wraps a swift-crypto Ed25519 private key.
    public init(_ key: Curve25519.Signing.PrivateKey) {
        algorithm = .ed25519
        publicKey = McuBootPublicKey(key.publicKey)
        privateBytes = Array(key.rawRepresentation)
    }

    /// Reads an unencrypted PEM private key as `imgtool keygen -t ecdsa-p256|ed25519` writes it.
    public init(pemRepresentation pem: String) throws(McuBootError) {
        let block = try PEMBlock(parsing: pem)
        switch block.label {
        case "PRIVATE KEY", "EC PRIVATE KEY":
            if let seed = KeyDER.key32(block.der, prefix: KeyDER.ed25519PKCS8Prefix),
                let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed)
            {
                self.init(key)
            } else if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
                self.init(key)
            } else {
                throw .invalidKey("the private key is neither ECDSA P-256 nor Ed25519 (RSA and P-384 are not supported)")
            }
        case "ENCRYPTED PRIVATE KEY":
            throw .invalidKey("the private key is password-protected; decrypt it first (openssl pkey)")
        default:
            throw .invalidKey("a PEM block labelled \(block.label) is not a private key")
        }
    }

    /// Signs the hashed region as imgtool does: ECDSA-SHA256 over the region (i.e. over its
    /// SHA-256 digest); Ed25519 over the `digest` bytes as the message.
    func sign(hashedBytes: ArraySlice<UInt8>, digest: [UInt8]) throws(McuBootError) -> [UInt8] {
        do {
            switch algorithm {
            case .ecdsaP256:
                let key = try P256.Signing.PrivateKey(rawRepresentation: privateBytes)
                return Array(try key.signature(for: SHA256.hash(data: hashedBytes)).derRepresentation)
            case .ed25519:
                let key = try Curve25519.Signing.PrivateKey(rawRepresentation: privateBytes)
                return Array(try key.signature(for: digest))
            case .rsa2048, .rsa3072:
                // Not reached: no initialiser makes an RSA signing key.
                throw McuBootError.invalidKey("RSA signing is not supported")
            }
        } catch {
            throw .invalidKey("signing failed: \(error)")
        }
    }
}
