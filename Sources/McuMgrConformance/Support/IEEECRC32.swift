/// IEEE 802.3 CRC-32, bit by bit (the FS group's crc32).
enum IEEECRC32 {
    /// The checksum of `bytes`.
    static func of(_ bytes: [UInt8]) -> UInt32 {
        var crc = ~UInt32(0)
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xedb8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}
