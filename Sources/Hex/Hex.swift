// Bytes as hexadecimal text and back: the one hex helper of the package, below CBOR and McuBoot,
// so that CBOR diagnostics, MCUboot messages, image hashes and the command line all print bytes alike.

extension Sequence where Element == UInt8 {
    /// The bytes as lowercase hex, two digits a byte and nothing between: `[0xde, 0xad]` → `"dead"`.
    public var hexString: String {
        var digits: [UInt8] = []
        digits.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            digits.append(hexDigits[Int(byte >> 4)])
            digits.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: digits, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    /// Parses hex text (two digits a byte, either case, nothing between), such as an image hash
    /// as `image list` prints it; `nil` for anything else.
    public init?(hex text: String) {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self = bytes
    }
}

private let hexDigits = Array("0123456789abcdef".utf8)

private func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
    default: return nil
    }
}
