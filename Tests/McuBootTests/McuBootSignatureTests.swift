import Crypto
import Foundation
import McuBoot
import Testing
import _CryptoExtras

/// ECDSA P-256, Ed25519, RSA-2048 and RSA-3072 signatures of imgtool-signed fixtures.
@Suite("MCUboot image signatures")
struct McuBootSignatureTests {
    static let signed = Fixtures.entries.filter { $0.key != nil }

    @Test("the signed fixtures cover every algorithm")
    func coverage() throws {
        let kinds = Set(try Self.signed.flatMap { try McuBootImage(bytes: Fixtures.bytes($0.image)).signatures.map(\.kind) })
        #expect(kinds == [.ecdsa, .ed25519, .rsa2048PSS, .rsa3072PSS])
    }

    @Test("verifies with the right public key (public PEM and private PEM)", arguments: signed)
    func rightKey(entry: Fixtures.Entry) throws {
        let image = try McuBootImage(bytes: Fixtures.bytes(entry.image))
        let fromPublic = try McuBootPublicKey(pemRepresentation: Fixtures.text(try #require(entry.publicKey)))
        let fromPrivate = try McuBootPublicKey(pemRepresentation: Fixtures.text(try #require(entry.key)))
        #expect(fromPublic == fromPrivate)
        #expect(try image.verifySignature(keys: [fromPublic]) == fromPublic)
        #expect(image.signatures.map(\.kind) == [fromPublic.signatureKind])
        // The KEYHASH / PUBKEY TLV identifies the same key, as imgtool computes it.
        if let keyHash = image.tlvs(ofType: .keyHash).first {
            #expect(keyHash.value == fromPublic.keyHash(using: image.hashAlgorithm))
        }
        if let full = image.tlvs(ofType: .publicKey).first {
            #expect(full.value == fromPublic.publicKeyBytes)
        }
        #expect(image.signingKeyHash == fromPublic.keyHash(using: image.hashAlgorithm))
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

        let rsa = try Fixtures.image("signed-rsa2048")
        let rsaKey = try _RSA.Signing.PublicKey(pemRepresentation: Fixtures.text("keys/rsa-2048.pub.pem"))
        let wrapped = try McuBootPublicKey(rsaKey)
        #expect(wrapped.algorithm == .rsa2048)
        #expect(wrapped.rawRepresentation == Array(rsaKey.pkcs1DERRepresentation))
        try rsa.verifySignature(publicKey: wrapped)
    }

    @Test("a wrong key of the same algorithm fails with keyMismatch naming the image's key hash", arguments: signed)
    func wrongKey(entry: Fixtures.Entry) throws {
        let image = try McuBootImage(bytes: Fixtures.bytes(entry.image))
        let other = try Self.otherKey(like: image.signatures[0].kind)
        let named = try #require(image.signingKeyHash)
        let error = mcuBootError { try image.verifySignature(publicKey: other) }
        #expect(error == .keyMismatch(imageKeyHash: named, keyHashes: [other.keyHash(using: image.hashAlgorithm)]))
        #expect(error?.description.contains(named.map { String(format: "%02x", $0) }.joined()) == true)
    }

    @Test("any of several keys may match; the matching one is returned", arguments: signed)
    func severalKeys(entry: Fixtures.Entry) throws {
        let image = try McuBootImage(bytes: Fixtures.bytes(entry.image))
        let right = try McuBootPublicKey(pemRepresentation: Fixtures.text(try #require(entry.publicKey)))
        let others = try Self.signed.compactMap(\.publicKey).map { try McuBootPublicKey(pemRepresentation: Fixtures.text($0)) }
            .filter { $0 != right }
        #expect(others.count >= 3)
        #expect(try image.verifySignature(keys: others + [right]) == right)
        #expect(try image.verifySignature(keys: [right] + others) == right)
        // Without the right key: a key of the image's algorithm is there (keyMismatch), or none is.
        let error = mcuBootError { try image.verifySignature(keys: others) }
        if others.contains(where: { $0.signatureKind == right.signatureKind }) {
            guard case .keyMismatch = error else { Issue.record("expected keyMismatch, got \(String(describing: error))"); return }
        } else {
            #expect(error == .signatureKindMismatch(keys: others.map(\.algorithm), image: [right.signatureKind]))
        }
    }

    @Test("a key of another algorithm fails with signatureKindMismatch, naming both", arguments: signed)
    func otherAlgorithm(entry: Fixtures.Entry) throws {
        let image = try McuBootImage(bytes: Fixtures.bytes(entry.image))
        let kind = image.signatures[0].kind
        let otherName = kind == .ed25519 ? "keys/ecdsa-p256.pub.pem" : "keys/ed25519.pub.pem"
        let other = try McuBootPublicKey(pemRepresentation: Fixtures.text(otherName))
        let error = mcuBootError { try image.verifySignature(publicKey: other) }
        #expect(error == .signatureKindMismatch(keys: [other.algorithm], image: [kind]))
        #expect(error?.description.contains("signed with \(kind)") == true)
        // RSA-2048 and RSA-3072 are different algorithms too.
        if kind == .rsa2048PSS || kind == .rsa3072PSS {
            let otherRSA = try McuBootPublicKey(pemRepresentation: Fixtures.text(
                kind == .rsa2048PSS ? "keys/rsa-3072.pub.pem" : "keys/rsa-2048.pub.pem"))
            #expect(mcuBootError { try image.verifySignature(publicKey: otherRSA) } == .signatureKindMismatch(keys: [otherRSA.algorithm], image: [kind]))
        }
    }

    @Test("an unsigned image reports missingSignature")
    func unsigned() throws {
        let image = try Fixtures.image("unsigned")
        let key = McuBootPublicKey(Curve25519.Signing.PrivateKey().publicKey)
        #expect(mcuBootError { try image.verifySignature(publicKey: key) } == .missingSignature)
    }

    @Test("a flipped signature byte fails with signatureInvalid; a flipped image byte with hashMismatch", arguments: signed)
    func tampered(entry: Fixtures.Entry) throws {
        let original = try Fixtures.bytes(entry.image)
        let image = try McuBootImage(bytes: original)
        let key = try McuBootPublicKey(pemRepresentation: Fixtures.text(try #require(entry.publicKey)))
        let signatureTLV = try #require(image.unprotectedTLVs.last)
        #expect(McuBootSignatureKind(tlvType: signatureTLV.type) != nil)

        for position in [signatureTLV.value.count - 1, signatureTLV.value.count / 2] {
            var badSignature = original
            badSignature[signatureTLV.offset + 4 + position] ^= 0x40
            let reparsed = try McuBootImage(bytes: badSignature)
            #expect(mcuBootError { try reparsed.verifySignature(publicKey: key) } == .signatureInvalid, "byte \(position)")
            #expect(try !Imgtool.verify(image: badSignature, keyPath: Fixtures.directory.appendingPathComponent(entry.publicKey!).path))
        }

        var badPayload = original
        badPayload[image.payloadRange.lowerBound + 7] ^= 0x80
        let altered = try McuBootImage(bytes: badPayload)
        let error = mcuBootError { try altered.verifySignature(publicKey: key) }
        #expect(error == .hashMismatch(expected: image.hash, actual: altered.computedHash()))
    }

    @Test("a truncated signature TLV fails with truncatedSignature", arguments: signed)
    func truncated(entry: Fixtures.Entry) throws {
        let original = try Fixtures.bytes(entry.image)
        let image = try McuBootImage(bytes: original)
        let key = try McuBootPublicKey(pemRepresentation: Fixtures.text(try #require(entry.publicKey)))
        let signatureTLV = try #require(image.unprotectedTLVs.last)
        #expect(signatureTLV.offset + 4 + signatureTLV.value.count == original.count, "the signature ends the file")
        let cut = 10
        var bytes = Array(original.dropLast(cut))
        let newLength = signatureTLV.value.count - cut
        bytes[signatureTLV.offset + 2] = UInt8(newLength & 0xff)
        bytes[signatureTLV.offset + 3] = UInt8(newLength >> 8)
        let area = image.hashedRange.upperBound
        let total = image.endOffset - area - cut
        bytes[area + 2] = UInt8(total & 0xff)
        bytes[area + 3] = UInt8(total >> 8)
        let reparsed = try McuBootImage(bytes: bytes)
        let error = mcuBootError { try reparsed.verifySignature(publicKey: key) }
        guard case .truncatedSignature(let kind, let length, let expected) = error else {
            Issue.record("expected truncatedSignature, got \(String(describing: error))")
            return
        }
        #expect(kind == key.signatureKind)
        #expect(length == newLength)
        #expect(expected > length)
        // Cutting the file instead (the area claims more than is there) is a parse error.
        if case .tlvAreaOverrun = parseError(Array(original.dropLast(cut))) {} else {
            Issue.record("a cut file should not parse")
        }
    }

    @Test("an ECDSA P-384 image (imgtool) is refused with unsupportedSignature")
    func unsupported() throws {
        guard Imgtool.available() else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcuboot-p384-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyPath = directory.appendingPathComponent("p384.pem").path
        try Imgtool.run(["keygen", "-t", "ecdsa-p384", "-k", keyPath])
        let bytes = try Imgtool.create(payload: Array(repeating: 0x42, count: 500), arguments: ["-v", "1.0.0", "-H", "0x20", "--pad-header", "-S", "0x20000", "-k", keyPath])
        let image = try McuBootImage(bytes: bytes)
        #expect(image.hashAlgorithm == .sha384)
        let p256 = try McuBootPublicKey(pemRepresentation: Fixtures.text("keys/ecdsa-p256.pub.pem"))
        #expect(mcuBootError { try image.verifySignature(publicKey: p256) } == .unsupportedSignature(.ecdsa))
        // Its key file is refused with a message naming the curve.
        let error = mcuBootError { _ = try McuBootPublicKey(keyFile: Array(try Data(contentsOf: URL(fileURLWithPath: keyPath)))) }
        guard case .invalidKey(let reason) = error else { Issue.record("expected invalidKey, got \(String(describing: error))"); return }
        #expect(reason.contains("P-384"))
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

    /// A fresh public key of the algorithm that makes `kind`.
    static func otherKey(like kind: McuBootSignatureKind) throws -> McuBootPublicKey {
        switch kind {
        case .ecdsa: McuBootPublicKey(P256.Signing.PrivateKey().publicKey)
        case .ed25519: McuBootPublicKey(Curve25519.Signing.PrivateKey().publicKey)
        case .rsa2048PSS: try McuBootPublicKey(_RSA.Signing.PrivateKey(keySize: .bits2048).publicKey)
        case .rsa3072PSS: try McuBootPublicKey(_RSA.Signing.PrivateKey(keySize: .bits3072).publicKey)
        case .ecdsaP224: throw McuBootError.unsupportedSignature(kind)
        }
    }
}
