import CBOR
import Crypto

/// Builds SUIT envelopes as nRF Connect SDK lays them out, for tests and simulators: a manifest with
/// a sequence number, components, and an install sequence that fetches each resource by URI (with its
/// digest and size), the manifest's SHA-256 digest, and optionally a COSE_Sign1 signature (ES256 or EdDSA).
public struct SUITEnvelopeBuilder: Sendable {
    /// The manifest's sequence number.
    public var sequenceNumber: UInt64
    /// Component identifiers, each a list of byte strings (NCS: `['M', 0x02, 0x0e0aa000, 0x07f000]`-like).
    public var components: [[[UInt8]]] = [[Array("M".utf8), [0x02]]]
    /// The manifest's own component id (NCS's `suit-manifest-component-id`), if any.
    public var manifestComponentID: [[UInt8]]? = [Array("INSTLD_MFST".utf8), [0x20]]
    /// Resources the install sequence fetches: the URI, and the bytes whose digest and size it sets.
    public var resources: [(uri: String, bytes: [UInt8])] = []
    /// Integrated payloads by name.
    public var integratedPayloads: [String: [UInt8]] = [:]
    /// The key to sign with; nil leaves the envelope unsigned.
    public var signingKey: McuBootSigningKey?
    /// The key id put in the signature's unprotected header, if any.
    public var keyID: [UInt8]?
    /// Tag the envelope with CBOR tag 107.
    public var tagged = true

    /// Makes a builder for a manifest with `sequenceNumber`.
    public init(sequenceNumber: UInt64) {
        self.sequenceNumber = sequenceNumber
    }

    /// The envelope's bytes.
    public func build() throws(SUITEnvelopeError) -> [UInt8] {
        let writer = CBORWriter()
        var install: [CBORValue] = []
        for (index, resource) in resources.enumerated() {
            let digest = SUITDigest.sha256(resource.bytes)
            install += [
                .unsigned(12), .unsigned(UInt64(min(index, max(0, components.count - 1)))),  // set-component-index
                .unsigned(UInt64(SUITKey.directiveOverrideParameters)),
                .map([
                    (.unsigned(UInt64(SUITKey.parameterImageDigest)), .bytes(writer.encode(digest.cborValue))),
                    (.unsigned(UInt64(SUITKey.parameterImageSize)), .unsigned(UInt64(resource.bytes.count))),
                    (.unsigned(UInt64(SUITKey.parameterURI)), .text(resource.uri)),
                ]),
                .unsigned(21), .unsigned(15),  // directive-fetch, report policy
                .unsigned(3), .unsigned(15),  // condition-image-match
            ]
        }
        let common: CBORValue = .map([
            (.unsigned(UInt64(SUITKey.components)), .array(components.map { .array($0.map { .bytes($0) }) })),
        ])
        var manifestEntries: [(key: CBORValue, value: CBORValue)] = [
            (.unsigned(UInt64(SUITKey.manifestVersion)), .unsigned(1)),
            (.unsigned(UInt64(SUITKey.sequenceNumber)), .unsigned(sequenceNumber)),
            (.unsigned(UInt64(SUITKey.common)), .bytes(writer.encode(common))),
        ]
        if let manifestComponentID {
            manifestEntries.append((.unsigned(UInt64(SUITKey.manifestComponentID)), .array(manifestComponentID.map { .bytes($0) })))
        }
        if !install.isEmpty {
            manifestEntries.append((.unsigned(UInt64(SUITKey.install)), .bytes(writer.encode(.array(install)))))
        }
        let manifest = writer.encode(.map(manifestEntries))
        let digestBytes = writer.encode(SUITDigest.sha256(manifest).cborValue)
        var wrapper: [CBORValue] = [.bytes(digestBytes)]
        if let signingKey {
            wrapper.append(.bytes(writer.encode(try Self.sign(digestBytes, with: signingKey, keyID: keyID))))
        }
        var envelope: [(key: CBORValue, value: CBORValue)] = [
            (.unsigned(UInt64(SUITKey.authenticationWrapper)), .bytes(writer.encode(.array(wrapper)))),
            (.unsigned(UInt64(SUITKey.manifest)), .bytes(manifest)),
        ]
        for (name, payload) in integratedPayloads.sorted(by: { $0.key < $1.key }) {
            envelope.append((.text(name), .bytes(payload)))
        }
        let value: CBORValue = .map(envelope)
        return writer.encode(tagged ? .tagged(SUITKey.envelopeTag, value) : value)
    }

    /// A COSE_Sign1_Tagged over the digest bytes (detached payload).
    static func sign(_ payload: [UInt8], with key: McuBootSigningKey, keyID: [UInt8]?) throws(SUITEnvelopeError) -> CBORValue {
        let algorithm = key.algorithm == .ed25519 ? -8 : -7
        let protected = CBORWriter().encode(.map([(.unsigned(1), SUITDigest.integer(algorithm))]))
        let message = SUITSignature.toBeSigned(protectedHeader: protected, payload: payload)
        let signature: [UInt8]
        do {
            switch key.algorithm {
            case .ecdsaP256:
                signature = Array(try P256.Signing.PrivateKey(rawRepresentation: key.privateBytes).signature(for: message).rawRepresentation)
            case .ed25519:
                signature = Array(try Curve25519.Signing.PrivateKey(rawRepresentation: key.privateBytes).signature(for: message))
            case .rsa2048, .rsa3072:
                throw SUITEnvelopeError.unsupportedAlgorithm(-37)
            }
        } catch let error as SUITEnvelopeError {
            throw error
        } catch {
            throw .malformed("signing failed: \(error)")
        }
        let unprotected: CBORValue = .map(keyID.map { [(.unsigned(4), .bytes($0))] } ?? [])
        return .tagged(SUITKey.coseSign1Tag, .array([.bytes(protected), unprotected, .null, .bytes(signature)]))
    }
}
