/// Hex text ⇄ bytes for test vectors.
enum Hex {
    /// Bytes from hex text; spaces and newlines are ignored.
    static func bytes(_ text: String) -> [UInt8] {
        let digits = text.filter { $0.isHexDigit }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            bytes.append(UInt8(digits[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// Lower-case hex without separators.
    static func string(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
