import CBOR
import Hex

// Byte strings in Codable models: `[UInt8]` fields go on the wire as CBOR byte strings (major
// type 2), not as arrays of integers. Through `CBORValue`'s own Codable form, a non-CBOR coder
// (JSON for the command line) sees them as lowercase hex text and reads that hex back.

extension KeyedDecodingContainer {
    /// Reads a CBOR byte string (or, from a non-CBOR decoder, its hex text) under `key`.
    func decodeByteString(forKey key: Key) throws -> [UInt8] {
        let value = try decode(CBORValue.self, forKey: key)
        switch value {
        case .bytes(let bytes):
            return bytes
        case .text(let text):
            guard let bytes = [UInt8](hex: text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "expected a byte string or hex text, found \"\(text)\"")
            }
            return bytes
        default:
            throw DecodingError.typeMismatch([UInt8].self, .init(codingPath: codingPath + [key], debugDescription: "expected a byte string, found \(value)"))
        }
    }

    /// Reads an optional byte string under `key`; absent or null reads as `nil`.
    func decodeByteStringIfPresent(forKey key: Key) throws -> [UInt8]? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeByteString(forKey: key)
    }
}

extension KeyedEncodingContainer {
    /// Writes `bytes` as a CBOR byte string (hex text for a non-CBOR encoder).
    mutating func encodeByteString(_ bytes: [UInt8], forKey key: Key) throws {
        try encode(CBORValue.bytes(bytes), forKey: key)
    }

    /// Writes `bytes` as a byte string when it is not `nil`; leaves the key out otherwise.
    mutating func encodeByteStringIfPresent(_ bytes: [UInt8]?, forKey key: Key) throws {
        if let bytes { try encodeByteString(bytes, forKey: key) }
    }
}
