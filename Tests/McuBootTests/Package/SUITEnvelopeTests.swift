import Crypto
import Foundation
import Hex
import McuBoot
import SMP
import SMPTestSupport
import Testing

/// SUIT envelopes: what the parser reads, the digest and signature checks, and bad bytes as errors.
@Suite("SUIT envelopes")
struct SUITEnvelopeTests {
    @Test("an envelope built as NCS lays it out parses back: sequence number, digest, components, fetched URIs")
    func roundTrip() throws {
        var builder = SUITEnvelopeBuilder(sequenceNumber: 7)
        builder.resources = [("file://app.bin", [UInt8](repeating: 0xaa, count: 100)), ("file://radio.bin", [1, 2])]
        builder.integratedPayloads = ["#cfg": [9, 9]]
        let envelope = try SUITEnvelope(bytes: try builder.build())
        #expect(envelope.sequenceNumber == 7 && envelope.manifestVersion == 1)
        #expect(envelope.digestMatches && envelope.digest.algorithm == -16)
        #expect(envelope.digest.bytes == Array(SHA256.hash(data: envelope.manifestBytes)))
        #expect(envelope.resources.map(\.uri) == ["file://app.bin", "file://radio.bin"])
        #expect(envelope.resources[0].size == 100 && envelope.resources[0].digest == .sha256([UInt8](repeating: 0xaa, count: 100)))
        #expect(envelope.components == [[Array("M".utf8), [0x02]]])
        #expect(envelope.integratedPayloads == ["#cfg": [9, 9]])
        #expect(envelope.signatures.isEmpty)
    }

    @Test("signatures: ES256 and EdDSA verify with their key and not with another")
    func signatures() throws {
        let p256 = McuBootSigningKey(P256.Signing.PrivateKey())
        let ed25519 = McuBootSigningKey(Curve25519.Signing.PrivateKey())
        for key in [p256, ed25519] {
            var builder = SUITEnvelopeBuilder(sequenceNumber: 2)
            builder.signingKey = key
            builder.keyID = [1, 2, 3]
            let envelope = try SUITEnvelope(bytes: try builder.build())
            #expect(envelope.signatures.map(\.algorithm) == [key.algorithm == .ed25519 ? -8 : -7])
            #expect(envelope.signatures.first?.keyID == [1, 2, 3])
            #expect(try envelope.verifySignature(keys: [key.publicKey]) == key.publicKey)
            let other = key.algorithm == .ed25519 ? McuBootSigningKey(Curve25519.Signing.PrivateKey()) : McuBootSigningKey(P256.Signing.PrivateKey())
            #expect(throws: SUITEnvelopeError.signatureInvalid) { try envelope.verifySignature(keys: [other.publicKey]) }
            let wrongKind = key.algorithm == .ed25519 ? p256 : ed25519
            #expect(throws: SUITEnvelopeError.keyKindMismatch(algorithm: key.algorithm == .ed25519 ? -8 : -7)) {
                try envelope.verifySignature(keys: [wrongKind.publicKey])
            }
        }
        #expect(throws: SUITEnvelopeError.unsigned) { try SUITEnvelope(bytes: try SUITEnvelopeBuilder(sequenceNumber: 1).build()).verifySignature(keys: [p256.publicKey]) }
    }

    @Test("an altered manifest no longer matches its digest")
    func digestMismatch() throws {
        let bytes = try SUITEnvelopeBuilder(sequenceNumber: 258).build()
        // The sequence number 258 is 0x19 0x01 0x02 in the manifest: change it to 259.
        let pattern: [UInt8] = [0x02, 0x19, 0x01, 0x02]
        let at = try #require((0...(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == pattern })
        var altered = bytes
        altered[at + 3] = 0x03
        let envelope = try SUITEnvelope(bytes: altered)
        #expect(envelope.sequenceNumber == 259 && !envelope.digestMatches)
        do {
            _ = try FirmwarePackage(suitEnvelope: altered)
            Issue.record("a package took an envelope whose digest does not match")
        } catch {
            guard case .invalidEnvelope(_, .digestMismatch) = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test("bytes that are not an envelope are malformed errors, truncated or random, never a trap")
    func malformed() throws {
        let good = try SUITEnvelopeBuilder(sequenceNumber: 1).build()
        var random = SeededRandom(seed: 66)
        var inputs: [[UInt8]] = [[], [0xa0], [0xd8, 0x6b, 0xa0], [0x82, 0x01, 0x02], Array("not cbor at all".utf8)]
        inputs += (0..<good.count).map { Array(good.prefix($0)) }
        inputs += (0..<200).map { _ in random.bytes(Int(random.next() % 64)) }
        for input in inputs {
            #expect(throws: SUITEnvelopeError.self) { try SUITEnvelope(bytes: input) }
        }
    }

    @Test("an envelope cbor2 writes from the CDDL (untagged, definite lengths) parses the same")
    func independentEncoding() async throws {
        let script = """
            import cbor2, hashlib, sys
            common = cbor2.dumps({2: [[b'M', b'\\x02']]})
            install = cbor2.dumps([20, {21: 'file://app.bin', 14: 5}, 21, 15])
            manifest = cbor2.dumps({1: 1, 2: 42, 3: common, 17: install})
            digest = cbor2.dumps([-16, hashlib.sha256(manifest).digest()])
            sys.stdout.write(cbor2.dumps({2: cbor2.dumps([digest]), 3: manifest}).hex())
            """
        let output = try await Subprocess.python(script)
        let bytes = try #require([UInt8](hex: output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let envelope = try SUITEnvelope(bytes: bytes)
        #expect(envelope.sequenceNumber == 42 && envelope.digestMatches)
        #expect(envelope.resources == [SUITResourceReference(uri: "file://app.bin", size: 5)])
    }
}
