// Sizes on command lines, written as imgtool's users write them: decimal (`524288`) or
// hexadecimal with a `0x` prefix (`0x80000`).

extension Int {
    /// Reads a size or count in decimal, or in hexadecimal after `0x`/`0X` (`"524288"`,
    /// `"0x80000"`); a leading `-` is kept (so that a caller can refuse it by name). `nil` for
    /// anything else: empty text, stray characters, or a value past `Int`.
    public init?(decimalOrHex text: String) {
        var digits = Substring(text)
        let negative = digits.hasPrefix("-")
        if negative { digits = digits.dropFirst() }
        let radix: Int
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            digits = digits.dropFirst(2)
            radix = 16
        } else {
            radix = 10
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }),
              let magnitude = Int(digits, radix: radix)
        else { return nil }
        self = negative ? -magnitude : magnitude
    }
}
