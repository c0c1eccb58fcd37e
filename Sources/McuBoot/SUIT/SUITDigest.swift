import Hex
import CBOR
import Crypto

/// A SUIT_Digest: `[algorithm-id, bytes]`, with COSE algorithm identifiers (SHA-256 is −16).
public struct SUITDigest: Sendable, Hashable, CustomStringConvertible {
    /// The COSE algorithm id: −16 SHA-256, −43 SHA-384, −44 SHA-512.
    public var algorithm: Int
    /// The digest bytes.
    public var bytes: [UInt8]

    /// Makes a digest.
    public init(algorithm: Int, bytes: [UInt8]) {
        self.algorithm = algorithm
        self.bytes = bytes
    }

    /// The SHA-256 digest of `data`.
    public static func sha256(_ data: some Collection<UInt8>) -> SUITDigest {
        SUITDigest(algorithm: -16, bytes: Array(SHA256.hash(data: Array(data))))
    }

    /// The digest of `data` with this digest's algorithm, or nil when the algorithm is not one of SHA-256/384/512.
    func recomputed(over data: [UInt8]) -> [UInt8]? {
        switch algorithm {
        case -16: return Array(SHA256.hash(data: data))
        case -43: return Array(SHA384.hash(data: data))
        case -44: return Array(SHA512.hash(data: data))
        default: return nil
        }
    }

    /// The algorithm's name (`sha-256`), or its number.
    public var algorithmName: String {
        switch algorithm {
        case -16: return "sha-256"
        case -43: return "sha-384"
        case -44: return "sha-512"
        default: return "algorithm \(algorithm)"
        }
    }

    /// `sha-256:` and the digest in hex.
    public var description: String { "\(algorithmName):\(bytes.hexString)" }

    /// Reads `[alg, bstr]`.
    init(cbor value: CBORValue) throws(SUITEnvelopeError) {
        guard let items = value.arrayValue, items.count == 2, let algorithm = items[0].intValue, let bytes = items[1].bytesValue else {
            throw .malformed("a SUIT digest is not [algorithm, bytes]")
        }
        self.init(algorithm: algorithm, bytes: bytes)
    }

    /// `[alg, bstr]`.
    var cborValue: CBORValue { .array([Self.integer(algorithm), .bytes(bytes)]) }

    static func integer(_ value: Int) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }
}
