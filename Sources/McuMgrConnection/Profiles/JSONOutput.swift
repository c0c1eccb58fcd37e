#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// JSON as `--json` prints it and the profiles file is written: pretty-printed, keys sorted,
/// slashes unescaped, non-finite numbers as the strings `inf`, `-inf` and `nan`.
public enum JSONOutput {
    /// `value` as such a JSON document (without a final newline).
    public static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
