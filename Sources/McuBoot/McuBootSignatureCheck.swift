import Crypto
import _CryptoExtras

/// One signature TLV checked against one key, per algorithm, as MCUboot's bootutil and imgtool do.
enum McuBootSignatureCheck {
    /// Whether `signature` (a TLV value of the key's kind) verifies for `image` with `key`.
    ///
    /// Throws ``McuBootError/truncatedSignature(kind:length:expected:)`` when the value is shorter
    /// than the algorithm needs, and `invalidKey` when the key bytes are not a key.
    static func verify(_ signature: [UInt8], key: McuBootPublicKey, image: McuBootImage) throws(McuBootError) -> Bool {
        let kind = key.signatureKind
        switch key.algorithm {
        case .ecdsaP256:
            let der = try ecdsaDER(signature)
            let publicKey = try McuBootPublicKey.p256Key(key.rawRepresentation)
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: der) else { return false }
            return publicKey.isValidSignature(parsed, for: SHA256.hash(data: image.bytes[image.hashedRange]))
        case .ed25519:
            guard signature.count >= 64 else { throw .truncatedSignature(kind: kind, length: signature.count, expected: 64) }
            guard signature.count == 64 else { return false }
            return try McuBootPublicKey.ed25519Key(key.rawRepresentation).isValidSignature(signature, for: image.hash)
        case .rsa2048, .rsa3072:
            let publicKey = try McuBootPublicKey.rsaKey(key.rawRepresentation)
            let expected = publicKey.keySizeInBits / 8
            guard signature.count >= expected else {
                throw .truncatedSignature(kind: kind, length: signature.count, expected: expected)
            }
            guard signature.count == expected else { return false }
            // imgtool: PSS(mgf=MGF1(SHA256), salt_length=32) with SHA-256; swift-crypto's .PSS uses
            // MGF1 with the digest's hash and a salt as long as the digest (32 bytes).
            return publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature),
                for: SHA256.hash(data: image.bytes[image.hashedRange]), padding: .PSS)
        }
    }

    /// An ECDSA DER signature without the zero bytes `imgtool --pad-sig` appends (MCUboot < 1.5);
    /// throws when the DER SEQUENCE claims more bytes than the TLV holds.
    static func ecdsaDER(_ signature: [UInt8]) throws(McuBootError) -> [UInt8] {
        // A P-256 signature is a SEQUENCE of two INTEGERs of up to 33 bytes: 8 to 72 bytes in all.
        guard signature.count >= 2, signature[0] == 0x30, signature[1] < 0x80 else {
            if signature.count < 8 { throw .truncatedSignature(kind: .ecdsa, length: signature.count, expected: 8) }
            return signature
        }
        let length = Int(signature[1]) + 2
        guard length <= signature.count else {
            throw .truncatedSignature(kind: .ecdsa, length: signature.count, expected: length)
        }
        return Array(signature.prefix(length))
    }
}
