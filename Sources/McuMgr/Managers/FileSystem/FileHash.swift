import CBOR
import Hex

/// File hash/checksum request (group 8, command 2): `{"name", "type"?, "off"?, "len"?}`.
public struct FileHashRequest: Codable, Sendable, Equatable {
    /// The file's absolute path on the device.
    public var name: String
    /// `"crc32"`, `"sha256"`, …; `nil` lets the device choose (crc32 when built in, else sha256).
    public var type: String?
    /// Where to start (default 0).
    public var offset: Int?
    /// How many bytes (default: to the end; 0 is refused).
    public var length: Int?

    /// Makes a request.
    public init(name: String, type: String? = nil, offset: Int? = nil, length: Int? = nil) {
        self.name = name
        self.type = type
        self.offset = offset
        self.length = length
    }

    private enum CodingKeys: String, CodingKey { case name, type, offset = "off", length = "len" }
}

/// A file's hash or checksum as the device computed it: `{"type", "off"?, "len", "output"}`.
public struct FileHash: Codable, Sendable, Equatable {
    /// The result: an integer for checksums (crc32), bytes for hashes (sha256).
    public enum Output: Codable, Sendable, Equatable, Hashable {
        /// A checksum, such as IEEE CRC-32.
        case checksum(UInt64)
        /// A digest, such as SHA-256.
        case digest([UInt8])

        /// The result as bytes: a digest as it is, a checksum big-endian in `size` bytes (default 4).
        public func bytes(size: Int = 4) -> [UInt8] {
            switch self {
            case .digest(let bytes): return bytes
            case .checksum(let value): return (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
            }
        }

        /// Writes an unsigned integer or a byte string.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .checksum(let value): try c.encode(value)
            case .digest(let bytes): try c.encode(CBORValue.bytes(bytes))
            }
        }

        /// Reads an unsigned integer or a byte string (or hex text from a non-CBOR decoder).
        public init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            let value = try c.decode(CBORValue.self)
            if case .unsigned(let checksum) = value {
                self = .checksum(checksum)
            } else if let digest = value.bytesValue ?? value.textValue.flatMap({ [UInt8](hex: $0) }) {
                self = .digest(digest)
            } else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected an unsigned integer or a byte string, found \(value)")
            }
        }
    }

    /// The algorithm the device used.
    public var type: String
    /// Where hashing started.
    public var offset: Int
    /// How many bytes were hashed.
    public var length: Int?
    /// The checksum or digest.
    public var output: Output

    /// Makes a result.
    public init(type: String, offset: Int = 0, length: Int?, output: Output) {
        self.type = type
        self.offset = offset
        self.length = length
        self.output = output
    }

    /// Reads a result; absent `off` reads as 0.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decode(String.self, forKey: .type)
        offset = try c.decodeIfPresent(Int.self, forKey: .offset) ?? 0
        length = try c.decodeIfPresent(Int.self, forKey: .length)
        output = try c.decode(Output.self, forKey: .output)
    }

    private enum CodingKeys: String, CodingKey { case type, offset = "off", length = "len", output }
}

extension FileHash.Output: CustomStringConvertible {
    /// Hex: a digest as it is, a checksum in 4 big-endian bytes (8 when it does not fit), e.g. `cbf43926`.
    public var description: String {
        switch self {
        case .digest(let bytes): return bytes.hexString
        case .checksum(let value): return bytes(size: value > UInt64(UInt32.max) ? 8 : 4).hexString
        }
    }
}
