import Crypto
import _CryptoExtras

extension McuBootPublicKey {
    /// Reads a key file as imgtool and OpenSSL write them: PEM or DER, a public key
    /// (`imgtool getpub -e pem`) or an unencrypted private key (`imgtool keygen`), whose public
    /// half is taken. ECDSA P-256, Ed25519, RSA-2048 and RSA-3072. A PEM file may start with a
    /// UTF-8 byte order mark and end its lines in `\r\n` or `\r`, as Windows editors write it.
    public init(keyFile bytes: [UInt8]) throws(McuBootError) {
        var body = bytes[...]
        if body.starts(with: [0xef, 0xbb, 0xbf]) { body = body.dropFirst(3) }
        let trimmed = body.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }
        if trimmed.starts(with: Array("-----BEGIN".utf8)) {
            guard let text = String(validating: body, as: UTF8.self) else {
                throw .invalidKey("the PEM file is not valid UTF-8 text")
            }
            try self.init(pemRepresentation: text)
        } else {
            try self.init(derRepresentation: bytes)
        }
    }

    /// Reads a PEM key: `PUBLIC KEY`, `RSA PUBLIC KEY`, `PRIVATE KEY`, `EC PRIVATE KEY` or
    /// `RSA PRIVATE KEY` (the public half of a private key is taken).
    public init(pemRepresentation pem: String) throws(McuBootError) {
        let block = try PEMBlock(parsing: pem)
        switch block.label {
        case "PUBLIC KEY", "RSA PUBLIC KEY":
            self = try Self.publicKey(der: block.der)
        case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY":
            self = try Self.privateKeysPublicHalf(der: block.der)
        case "ENCRYPTED PRIVATE KEY":
            throw .invalidKey("the private key is password-protected; export its public key with imgtool getpub -e pem")
        default:
            throw .invalidKey("a PEM block labelled \(block.label) is not a key")
        }
    }

    /// Reads a DER key: a SubjectPublicKeyInfo, a PKCS#1 RSA public or private key, a PKCS#8
    /// private key or a SEC 1 EC private key.
    public init(derRepresentation der: [UInt8]) throws(McuBootError) {
        guard der.first == 0x30 else {
            throw .invalidKey("the file is neither a PEM key (-----BEGIN ...) nor a DER key")
        }
        if let key = try? Self.publicKey(der: der) {
            self = key
        } else {
            self = try Self.privateKeysPublicHalf(der: der)
        }
    }

    /// The key of a SubjectPublicKeyInfo or PKCS#1 `RSAPublicKey` DER.
    private static func publicKey(der: [UInt8]) throws(McuBootError) -> McuBootPublicKey {
        if let raw = KeyDER.key32(der, prefix: KeyDER.ed25519SPKIPrefix) {
            return try McuBootPublicKey(algorithm: .ed25519, rawRepresentation: raw)
        }
        if let key = try? P256.Signing.PublicKey(derRepresentation: der) { return McuBootPublicKey(key) }
        if RSAPublicKeyDER.components(der) != nil { return try McuBootPublicKey(try McuBootPublicKey.rsaKey(der)) }
        if (try? P384.Signing.PublicKey(derRepresentation: der)) != nil || (try? P521.Signing.PublicKey(derRepresentation: der)) != nil {
            throw .invalidKey("ECDSA P-384 and P-521 keys are not supported (ECDSA P-256, Ed25519, RSA-2048 and RSA-3072 are)")
        }
        throw .invalidKey("the public key is not ECDSA P-256, Ed25519 or RSA")
    }

    /// The public half of a PKCS#8, SEC 1 or PKCS#1 private key DER.
    private static func privateKeysPublicHalf(der: [UInt8]) throws(McuBootError) -> McuBootPublicKey {
        if let seed = KeyDER.key32(der, prefix: KeyDER.ed25519PKCS8Prefix),
           let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) {
            return McuBootPublicKey(key.publicKey)
        }
        if let key = try? P256.Signing.PrivateKey(derRepresentation: der) { return McuBootPublicKey(key.publicKey) }
        if let key = try? _RSA.Signing.PrivateKey(unsafeDERRepresentation: der) { return try McuBootPublicKey(key.publicKey) }
        if (try? P384.Signing.PrivateKey(derRepresentation: der)) != nil || (try? P521.Signing.PrivateKey(derRepresentation: der)) != nil {
            throw .invalidKey("ECDSA P-384 and P-521 keys are not supported (ECDSA P-256, Ed25519, RSA-2048 and RSA-3072 are)")
        }
        throw .invalidKey("the key is not an ECDSA P-256, Ed25519 or RSA key (public or unencrypted private)")
    }
}
