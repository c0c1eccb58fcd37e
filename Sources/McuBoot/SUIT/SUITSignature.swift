import CBOR
import Crypto

/// One COSE_Sign1 authentication block of a SUIT envelope: its algorithm and key id, and what it
/// signs (the manifest's SUIT_Digest, detached).
public struct SUITSignature: Sendable, Hashable {
    /// The COSE algorithm from the protected header: −7 ES256, −35 ES384, −8 EdDSA.
    public let algorithm: Int
    /// The key id from the unprotected (or protected) header, if any.
    public let keyID: [UInt8]?
    /// The signature bytes (`r ‖ s` for ECDSA).
    public let signature: [UInt8]
    /// The encoded protected header (signed with the payload).
    let protectedHeader: [UInt8]
    /// The signed payload: the encoded SUIT_Digest.
    let payload: [UInt8]

    /// The algorithm's COSE name.
    public var algorithmName: String { Self.algorithmName(algorithm) }

    /// `ES256`, `ES384`, `EdDSA`, or the number.
    static func algorithmName(_ algorithm: Int) -> String {
        switch algorithm {
        case -7: return "ES256"
        case -35: return "ES384"
        case -8: return "EdDSA"
        default: return "COSE algorithm \(algorithm)"
        }
    }

    /// Reads a COSE_Sign1 (tagged 18 or bare); nil for another kind of block (COSE_Mac0 …).
    init?(cbor value: CBORValue, digestBytes: [UInt8]) throws(SUITEnvelopeError) {
        var block = value
        if case .tagged(let tag, let inner) = value {
            guard tag == SUITKey.coseSign1Tag else { return nil }
            block = inner
        }
        guard let items = block.arrayValue, items.count == 4 else { return nil }
        guard let protected = items[0].bytesValue, let signature = items[3].bytesValue else {
            throw .malformed("a COSE_Sign1 block has no protected header or signature")
        }
        let header = protected.isEmpty ? CBORValue.map([]) : try SUITEnvelope.decode(protected, "a COSE protected header")
        guard let algorithm = header[int: 1]?.intValue else { throw .malformed("a COSE_Sign1 block names no algorithm") }
        self.algorithm = algorithm
        keyID = items[1][int: 4]?.bytesValue ?? header[int: 4]?.bytesValue
        self.signature = signature
        protectedHeader = protected
        payload = items[2].bytesValue ?? digestBytes
    }

    init(algorithm: Int, keyID: [UInt8]?, signature: [UInt8], protectedHeader: [UInt8], payload: [UInt8]) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.signature = signature
        self.protectedHeader = protectedHeader
        self.payload = payload
    }

    /// The COSE Sig_structure this block signs: `["Signature1", protected, h'', payload]`.
    static func toBeSigned(protectedHeader: [UInt8], payload: [UInt8]) -> [UInt8] {
        CBORWriter().encode(.array([.text("Signature1"), .bytes(protectedHeader), .bytes([]), .bytes(payload)]))
    }

    /// Whether the signature verifies with `key` (false for a key of another kind).
    func verifies(with key: McuBootPublicKey) throws(SUITEnvelopeError) -> Bool {
        let message = Self.toBeSigned(protectedHeader: protectedHeader, payload: payload)
        switch (algorithm, key.algorithm) {
        case (-7, .ecdsaP256):
            guard let publicKey = try? P256.Signing.PublicKey(x963Representation: key.rawRepresentation),
                  let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return publicKey.isValidSignature(signature, for: message)
        case (-8, .ed25519):
            guard let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: key.rawRepresentation) else { return false }
            return publicKey.isValidSignature(signature, for: message)
        case (-7, _), (-8, _):
            return false
        default:
            throw .unsupportedAlgorithm(algorithm)
        }
    }
}

extension SUITEnvelope {
    /// Checks the manifest's digest, then that a signature verifies with one of `keys`; returns that key.
    @discardableResult
    public func verifySignature(keys: [McuBootPublicKey]) throws(SUITEnvelopeError) -> McuBootPublicKey {
        guard digestMatches else {
            throw .digestMismatch(expected: digest.bytes, actual: digest.recomputed(over: manifestBytes) ?? [])
        }
        guard let first = signatures.first else { throw .unsigned }
        var sawKind = false
        for signature in signatures {
            for key in keys {
                let kindMatches = (signature.algorithm == -7 && key.algorithm == .ecdsaP256) || (signature.algorithm == -8 && key.algorithm == .ed25519)
                if kindMatches { sawKind = true }
                if try signature.verifies(with: key) { return key }
            }
        }
        throw sawKind ? .signatureInvalid : .keyKindMismatch(algorithm: first.algorithm)
    }
}
