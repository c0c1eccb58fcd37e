import Crypto

/// The digest an MCUboot image carries in its unprotected TLV area.
public enum McuBootHashAlgorithm: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// SHA-256, TLV 0x10; what Zephyr's image manager reports as the image hash.
    case sha256
    /// SHA-384, TLV 0x11.
    case sha384
    /// SHA-512, TLV 0x12.
    case sha512

    /// The TLV type that carries this digest.
    public var tlvType: McuBootTLVType {
        switch self {
        case .sha256: .sha256
        case .sha384: .sha384
        case .sha512: .sha512
        }
    }

    /// The digest length in bytes (32, 48 or 64).
    public var digestSize: Int {
        switch self {
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The algorithm whose digest TLV has `type`, or nil for other types.
    public init?(tlvType type: McuBootTLVType) {
        guard let match = Self.allCases.first(where: { $0.tlvType == type }) else { return nil }
        self = match
    }

    /// `"SHA-256"`, `"SHA-384"` or `"SHA-512"`.
    public var description: String {
        switch self {
        case .sha256: "SHA-256"
        case .sha384: "SHA-384"
        case .sha512: "SHA-512"
        }
    }

    /// The digest of `bytes` with this algorithm.
    public func digest(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        switch self {
        case .sha256: Array(SHA256.hash(data: bytes))
        case .sha384: Array(SHA384.hash(data: bytes))
        case .sha512: Array(SHA512.hash(data: bytes))
        }
    }
}
