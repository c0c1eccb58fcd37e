import Hex

/// Hex text of test vectors, on the package's `Hex` helpers: the one place tests turn the hex
/// of a specification or a peer's output into bytes, and bytes into hex for their messages.
public enum HexText {
    /// Bytes from hex text; spaces and newlines between digits are ignored. Anything else is a
    /// typo in a test vector and traps.
    public static func bytes(_ text: String) -> [UInt8] {
        guard let bytes = [UInt8](hex: String(text.filter { !$0.isWhitespace })) else {
            preconditionFailure("not hex text: \(text)")
        }
        return bytes
    }

    /// Lowercase hex of the bytes, nothing between.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        bytes.hexString
    }
}
