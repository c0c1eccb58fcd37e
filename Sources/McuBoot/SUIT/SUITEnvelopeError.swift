import Hex

/// Why bytes are not a SUIT envelope this module can read, or why its signature does not verify.
public enum SUITEnvelopeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not CBOR, or not the envelope's structure (the message says where).
    case malformed(String)
    /// The manifest's digest differs from the digest its authentication wrapper carries.
    case digestMismatch(expected: [UInt8], actual: [UInt8])
    /// The envelope carries no COSE_Sign1 authentication block.
    case unsigned
    /// The signature's COSE algorithm is not one this module verifies (ES256 and EdDSA are).
    case unsupportedAlgorithm(Int)
    /// No key of the given kind: the envelope is signed with `algorithm`.
    case keyKindMismatch(algorithm: Int)
    /// The signature does not verify with any of the given keys.
    case signatureInvalid

    /// A one-line message.
    public var description: String {
        switch self {
        case .malformed(let why): return "not a SUIT envelope: \(why)"
        case .digestMismatch(let expected, let actual):
            return "the manifest's digest \(actual.hexString) differs from the \(expected.hexString) its authentication wrapper carries"
        case .unsigned: return "the envelope carries no COSE_Sign1 signature"
        case .unsupportedAlgorithm(let algorithm):
            return "the envelope is signed with COSE algorithm \(algorithm); ES256 (-7) and EdDSA (-8) are verified here"
        case .keyKindMismatch(let algorithm):
            return "the envelope is signed with \(SUITSignature.algorithmName(algorithm)), and no key given is of that kind"
        case .signatureInvalid: return "the envelope's signature does not verify with the given keys"
        }
    }
}
