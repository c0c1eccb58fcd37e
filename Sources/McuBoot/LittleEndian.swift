// Little-endian reads and writes with bounds checks (internal helpers).

extension Array where Element == UInt8 {
    /// The little-endian `UInt16` at `offset`, or nil when fewer than 2 bytes are there.
    func le16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        return UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
    }

    /// The little-endian `UInt32` at `offset`, or nil when fewer than 4 bytes are there.
    func le32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        return UInt32(self[offset]) | UInt32(self[offset + 1]) << 8
            | UInt32(self[offset + 2]) << 16 | UInt32(self[offset + 3]) << 24
    }

    /// Appends `value` as 2 little-endian bytes.
    mutating func appendLE16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    /// Appends `value` as 4 little-endian bytes.
    mutating func appendLE32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) {
            append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }
}

/// `0x`-prefixed hexadecimal of `value`, zero-padded to `width` digits (for messages).
func hex<T: BinaryInteger>(_ value: T, width: Int = 2) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, width - digits.count)) + digits
}
