/// CRC-16/XMODEM (polynomial 0x1021, initial value 0, no reflection, no final XOR), the checksum
/// of Zephyr's SMP console framing (`crc16_itu_t(0x0000, …)`); check value for "123456789" is 0x31C3.
public enum CRC16XMODEM {
    /// The checksum of `bytes`, continuing from `initial` (0 for a fresh computation).
    public static func checksum(_ bytes: some Sequence<UInt8>, initial: UInt16 = 0) -> UInt16 {
        var crc = initial
        for byte in bytes {
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return crc
    }

    /// The CRC of each byte value shifted into the high byte of an empty register.
    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 {
            crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
        }
        return crc
    }
}
