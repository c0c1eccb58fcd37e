import Hex

/// Hex text ⇄ bytes for test vectors, on the package's Hex target; spaces and newlines in vectors are ignored.
enum Hex {
    /// Bytes from hex text; spaces and newlines are ignored.
    static func bytes(_ text: String) -> [UInt8] {
        [UInt8](hex: text.filter(\.isHexDigit))!
    }

    /// Lower-case hex without separators.
    static func string(_ bytes: some Sequence<UInt8>) -> String {
        bytes.hexString
    }
}
