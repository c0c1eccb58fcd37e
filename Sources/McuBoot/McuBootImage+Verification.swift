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

    /// The hash of the key the image says it was signed with: its `KEYHASH` TLV, else the digest
    /// of its `PUBKEY` TLV (with ``hashAlgorithm``, as imgtool computes key hashes); nil if neither.
    public var signingKeyHash: [UInt8]? {
        if let keyHash = unprotectedTLVs.first(where: { $0.type == .keyHash }) { return keyHash.value }
        if let full = unprotectedTLVs.first(where: { $0.type == .publicKey }) { return hashAlgorithm.digest(full.value[...]) }
        return nil
    }

    /// Checks the hash, then that one of the image's signatures verifies with `publicKey`.
    ///
    /// See ``verifySignature(keys:)`` for the checks and errors.
    public func verifySignature(publicKey: McuBootPublicKey) throws(McuBootError) {
        try verifySignature(keys: [publicKey])
    }

    /// Checks the hash, then that a signature verifies with one of `keys`; returns that key.
    ///
    /// The image's `KEYHASH` (or `PUBKEY`) TLV picks the key first, as MCUboot does. ECDSA P-256
    /// and RSA-PSS are checked over the SHA-256 of the hashed bytes, Ed25519 over the image hash
    /// bytes (what imgtool signs). Throws `missingSignature`, `unsupportedSignature` (ECDSA P-224
    /// or P-384), `signatureKindMismatch` (every key is of another algorithm), `keyMismatch` (the
    /// image names another key), `truncatedSignature` or `signatureInvalid`.
    @discardableResult
    public func verifySignature(keys: [McuBootPublicKey]) throws(McuBootError) -> McuBootPublicKey {
        try verifyHash()
        let all = signatures
        guard let first = all.first else { throw .missingSignature }
        let supported = all.filter { isVerifiable($0.kind) }
        guard !supported.isEmpty else { throw .unsupportedSignature(first.kind) }
        let compatible = keys.filter { key in supported.contains { $0.kind == key.signatureKind } }
        guard !compatible.isEmpty else {
            throw .signatureKindMismatch(keys: keys.map(\.algorithm), image: all.map(\.kind))
        }
        var candidates = compatible
        if let named = signingKeyHash {
            candidates = compatible.filter { $0.keyHash(using: hashAlgorithm) == named }
            guard !candidates.isEmpty else {
                throw .keyMismatch(imageKeyHash: named, keyHashes: compatible.map { $0.keyHash(using: hashAlgorithm) })
            }
        }
        var failure = McuBootError.signatureInvalid
        for key in candidates {
            for signature in supported where signature.kind == key.signatureKind {
                do throws(McuBootError) {
                    if try McuBootSignatureCheck.verify(signature.value, key: key, image: self) { return key }
                } catch {
                    failure = error
                }
            }
        }
        throw failure
    }

    /// Checks the hash and an ECDSA P-256 signature with a swift-crypto public key.
    public func verifySignature(publicKey: P256.Signing.PublicKey) throws(McuBootError) {
        try verifySignature(publicKey: McuBootPublicKey(publicKey))
    }

    /// Checks the hash and an Ed25519 signature with a swift-crypto public key.
    public func verifySignature(publicKey: Curve25519.Signing.PublicKey) throws(McuBootError) {
        try verifySignature(publicKey: McuBootPublicKey(publicKey))
    }

    /// Whether signatures of `kind` in this image can be verified here: not ECDSA P-224, and
    /// ECDSA only with a SHA-256 image hash (TLV 0x22 with SHA-384 is ECDSA P-384).
    func isVerifiable(_ kind: McuBootSignatureKind) -> Bool {
        switch kind {
        case .ecdsaP224: false
        case .ecdsa: hashAlgorithm == .sha256
        case .ed25519, .rsa2048PSS, .rsa3072PSS: true
        }
    }
}
