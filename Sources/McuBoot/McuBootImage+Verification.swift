import Crypto

extension McuBootImage {
    /// The hash recomputed from ``bytes`` over ``hashedRange`` with ``hashAlgorithm``.
    public func computedHash() -> [UInt8] {
        hashAlgorithm.digest(bytes[hashedRange])
    }

    /// Checks that the stored ``hash`` matches the image contents, as MCUboot does before booting.
    ///
    /// Throws ``McuBootError/hashMismatch(expected:actual:)`` when header, payload or protected
    /// TLVs were altered.
    public func verifyHash() throws(McuBootError) {
        let actual = computedHash()
        guard actual == hash else { throw .hashMismatch(expected: hash, actual: actual) }
    }

    /// Checks the hash, then that one of the image's signatures verifies with `publicKey`.
    ///
    /// ECDSA P-256 is checked over the SHA-256 image hash; Ed25519 over the hash bytes as the
    /// message (what imgtool signs). RSA and ECDSA P-384 are not supported.
    public func verifySignature(publicKey: McuBootPublicKey) throws(McuBootError) {
        try verifyHash()
        let all = signatures
        guard !all.isEmpty else { throw .missingSignature }
        let candidates = all.filter { $0.kind == publicKey.signatureKind }
        guard !candidates.isEmpty else {
            throw .signatureKindMismatch(key: publicKey.signatureKind, image: all.map(\.kind))
        }
        switch publicKey.algorithm {
        case .ecdsaP256:
            // TLV 0x22 with a SHA-384 hash is ECDSA P-384, which this module does not verify.
            guard hashAlgorithm == .sha256 else { throw .unsupportedSignature(.ecdsa) }
            let key = try McuBootPublicKey.p256Key(publicKey.rawRepresentation)
            let digest = SHA256.hash(data: bytes[hashedRange])
            for candidate in candidates {
                guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: Self.strippingDERPadding(candidate.value))
                else { continue }
                if key.isValidSignature(signature, for: digest) { return }
            }
        case .ed25519:
            let key = try McuBootPublicKey.ed25519Key(publicKey.rawRepresentation)
            for candidate in candidates where key.isValidSignature(candidate.value, for: hash) {
                return
            }
        }
        throw .signatureInvalid
    }

    /// Checks the hash and an ECDSA P-256 signature with a swift-crypto public key.
    public func verifySignature(publicKey: P256.Signing.PublicKey) throws(McuBootError) {
        try verifySignature(publicKey: McuBootPublicKey(publicKey))
    }

    /// Checks the hash and an Ed25519 signature with a swift-crypto public key.
    public func verifySignature(publicKey: Curve25519.Signing.PublicKey) throws(McuBootError) {
        try verifySignature(publicKey: McuBootPublicKey(publicKey))
    }

    /// An ECDSA DER signature without the zero bytes `imgtool --pad-sig` appends (MCUboot < 1.5).
    static func strippingDERPadding(_ signature: [UInt8]) -> [UInt8] {
        guard signature.count >= 2, signature[0] == 0x30, signature[1] < 0x80 else { return signature }
        let length = Int(signature[1]) + 2
        return length <= signature.count ? Array(signature.prefix(length)) : signature
    }
}
