import Crypto
import Foundation
import McuBoot
import Testing

/// ECDSA P-256 and Ed25519 signatures of imgtool-signed fixtures.
@Suite("MCUboot image signatures")
struct McuBootSignatureTests {
    static let signed = Fixtures.entries.filter { $0.key != nil }

    @Test("verifies with the right public key (public PEM and private PEM)", arguments: signed)
    func rightKey(entry: Fixtures.Entry) throws {
        let image = try McuBootImage(bytes: Fixtures.bytes(entry.image))
        let fromPublic = try McuBootPublicKey(pemRepresentation: Fixtures.text(try #require(entry.publicKey)))
        let fromPrivate = try McuBootPublicKey(pemRepresentation: Fixtures.text(try #require(entry.key)))
        #expect(fromPublic == fromPrivate)
        try image.verifySignature(publicKey: fromPublic)
        // The KEYHASH / PUBKEY TLV identifies the same key.
        if let keyHash = image.tlvs(ofType: .keyHash).first {
            #expect(keyHash.value == fromPublic.keyHash(using: image.hashAlgorithm))
        }
        if let full = image.tlvs(ofType: .publicKey).first {
            #expect(full.value == fromPublic.subjectPublicKeyInfo)
        }
    }

    @Test("verifies with swift-crypto key types")
    func cryptoKeys() throws {
        let ecdsa = try Fixtures.image("signed-ecdsa-p256")
        let p256 = try P256.Signing.PublicKey(pemRepresentation: Fixtures.text("keys/ecdsa-p256.pub.pem"))
        try ecdsa.verifySignature(publicKey: p256)
        // The DER SubjectPublicKeyInfo we build equals swift-crypto's.
        #expect(McuBootPublicKey(p256).subjectPublicKeyInfo == Array(p256.derRepresentation))

        let ed = try Fixtures.image("signed-ed25519")
        let edKey = try McuBootPublicKey(pemRepresentation: Fixtures.text("keys/ed25519.pub.pem"))
        let curve = try Curve25519.Signing.PublicKey(rawRepresentation: edKey.rawRepresentation)
        try ed.verifySignature(publicKey: curve)
        // imgtool signs the 32 hash bytes as the Ed25519 message.
        let signature = try #require(ed.signatures.first)
        #expect(curve.isValidSignature(signature.value, for: ed.hash))
    }

    @Test("fails with a wrong key of the same kind", arguments: signed)
    func wrongKey(entry: Fixtures.Entry) throws {
        let image = try McuBootImage(bytes: Fixtures.bytes(entry.image))
        let other: McuBootPublicKey =
            image.signatures.first?.kind == .ecdsa
            ? McuBootPublicKey(P256.Signing.PrivateKey().publicKey)
            : McuBootPublicKey(Curve25519.Signing.PrivateKey().publicKey)
        #expect(mcuBootError { try image.verifySignature(publicKey: other) } == .signatureInvalid)
    }

    @Test("fails with a key of the other kind, naming both")
    func otherKind() throws {
        let ecdsa = try Fixtures.image("signed-ecdsa-p256")
        let edKey = try McuBootPublicKey(pemRepresentation: Fixtures.text("keys/ed25519.pub.pem"))
        let error = mcuBootError { try ecdsa.verifySignature(publicKey: edKey) }
        #expect(error == McuBootError.signatureKindMismatch(key: .ed25519, image: [.ecdsa]))
        #expect(error?.description.contains("signed with ECDSA") == true)
    }

    @Test("an unsigned image reports missingSignature")
    func unsigned() throws {
        let image = try Fixtures.image("unsigned")
        let key = McuBootPublicKey(Curve25519.Signing.PrivateKey().publicKey)
        #expect(mcuBootError { try image.verifySignature(publicKey: key) } == .missingSignature)
    }

    @Test("a changed signature byte fails; a changed payload byte fails on the hash first", arguments: signed)
    func tampered(entry: Fixtures.Entry) throws {
        let original = try Fixtures.bytes(entry.image)
        let image = try McuBootImage(bytes: original)
        let key = try McuBootPublicKey(pemRepresentation: Fixtures.text(try #require(entry.publicKey)))
        let signatureTLV = try #require(image.unprotectedTLVs.last)
        #expect(McuBootSignatureKind(tlvType: signatureTLV.type) != nil)

        var badSignature = original
        badSignature[signatureTLV.offset + 4 + signatureTLV.value.count - 1] ^= 0x40
        let reparsed = try McuBootImage(bytes: badSignature)
        #expect(mcuBootError { try reparsed.verifySignature(publicKey: key) } == .signatureInvalid)

        var badPayload = original
        badPayload[image.payloadRange.lowerBound + 7] ^= 0x80
        let altered = try McuBootImage(bytes: badPayload)
        let error = mcuBootError { try altered.verifySignature(publicKey: key) }
        #expect(error == .hashMismatch(expected: image.hash, actual: altered.computedHash()))
    }

    @Test("an ECDSA signature padded by imgtool --pad-sig still verifies")
    func paddedSignature() throws {
        let key = P256.Signing.PrivateKey()
        var builder = McuBootImageBuilder(payload: Array(repeating: 0x5a, count: 300), version: McuBootVersion(major: 1))
        builder.signingKey = McuBootSigningKey(key)
        let bytes = try builder.build()
        let image = try McuBootImage(bytes: bytes)
        let signature = try #require(image.unprotectedTLVs.last)
        // Rebuild the unprotected area with the signature padded to 72 bytes.
        let padding = 72 - signature.value.count
        var padded = Array(bytes[..<signature.offset])
        let info = image.hashedRange.upperBound
        let total = (Int(padded[info + 2]) | Int(padded[info + 3]) << 8) + padding
        padded[info + 2] = UInt8(total & 0xff)
        padded[info + 3] = UInt8(total >> 8)
        padded += [0x22, 0x00, 72, 0x00] + signature.value + Array(repeating: 0, count: padding)
        let paddedImage = try McuBootImage(bytes: padded)
        try paddedImage.verifySignature(publicKey: McuBootPublicKey(key.publicKey))
    }

    @Test("keys that are not P-256 or Ed25519 PEM are refused with invalidKey")
    func badKeys() {
        #expect(isInvalidKey { _ = try McuBootPublicKey(pemRepresentation: "not a key") })
        #expect(isInvalidKey { _ = try McuBootPublicKey(pemRepresentation: "-----BEGIN PUBLIC KEY-----\n!!!\n-----END PUBLIC KEY-----\n") })
        // A P-384 public key (valid PEM, unsupported curve).
        let p384 = P384.Signing.PrivateKey().publicKey.pemRepresentation
        #expect(isInvalidKey { _ = try McuBootPublicKey(pemRepresentation: p384) })
        #expect(isInvalidKey { _ = try McuBootPublicKey(algorithm: .ed25519, rawRepresentation: [1, 2, 3]) })
        #expect(isInvalidKey { _ = try McuBootPublicKey(algorithm: .ecdsaP256, rawRepresentation: Array(repeating: 4, count: 65)) })
        #expect(isInvalidKey { _ = try McuBootSigningKey(pemRepresentation: "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----") })
    }

    private func isInvalidKey(_ body: () throws -> Void) -> Bool {
        if case .invalidKey = mcuBootError(body) { return true }
        return false
    }
}
