/// Reads little-endian fields from a parameter block, throwing ``HCIDecodingError/truncated(what:needed:available:)``
/// when a field runs past the end.
struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int
    let what: String

    init(_ bytes: ArraySlice<UInt8>, what: String) {
        self.bytes = bytes
        self.position = bytes.startIndex
        self.what = what
    }

    init(_ bytes: [UInt8], what: String) {
        self.init(bytes[...], what: what)
    }

    /// Bytes not read yet.
    var remaining: Int { bytes.endIndex - position }

    /// Bytes read so far.
    var consumed: Int { position - bytes.startIndex }

    mutating func bytes(_ count: Int) throws(HCIDecodingError) -> ArraySlice<UInt8> {
        guard count <= remaining else { throw .truncated(what: what, needed: consumed + count, available: bytes.count) }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    mutating func u8() throws(HCIDecodingError) -> UInt8 {
        try bytes(1).first!
    }

    mutating func u16() throws(HCIDecodingError) -> UInt16 {
        let b = try bytes(2)
        return UInt16(b[b.startIndex]) | UInt16(b[b.startIndex + 1]) << 8
    }

    mutating func u64() throws(HCIDecodingError) -> UInt64 {
        try bytes(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// What is left.
    mutating func rest() -> ArraySlice<UInt8> {
        defer { position = bytes.endIndex }
        return bytes[position...]
    }
}

/// Little-endian encoding helpers for command parameters.
extension Array where Element == UInt8 {
    mutating func appendLE(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }

    mutating func appendLE(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8((value >> UInt64(shift)) & 0xFF)) }
    }
}
