import ArgumentParser
import Hex

/// Reads a size option in decimal or `0x` hexadecimal (`1472`, `0x5c0`), naming the option when it is neither.
func sizeOption(_ option: String) -> @Sendable (String) throws -> Int {
    { text in
        guard let value = Int(decimalOrHex: text) else {
            throw ValidationError("\(option) expects a number of bytes, in decimal or 0x hexadecimal, not '\(text)'")
        }
        return value
    }
}
