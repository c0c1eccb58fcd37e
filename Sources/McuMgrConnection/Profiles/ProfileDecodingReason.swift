#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why the profiles file's JSON could not be read, in words for a message (`"connections" →
/// "board": "type" is missing`), instead of a `DecodingError`'s dump.
enum ProfileDecodingReason {
    /// The reason `error` (from decoding ``ConnectionProfiles``) gives.
    static func text(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return FileErrorReason.text(error) }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // The decoder says where only through an underlying error, when it has one.
            return "not valid JSON" + (context.underlyingError.map { " (\($0))" } ?? "; check its brackets, quotes and commas")
        case .dataCorrupted(let context):
            return "\(place(context.codingPath)) is not valid: \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(place(context.codingPath + [key])) is missing"
        case .valueNotFound(_, let context):
            return "\(place(context.codingPath)) is null"
        case .typeMismatch(let type, let context):
            return "\(place(context.codingPath)) should be \(kind(type))"
        @unknown default:
            return "\(error)"
        }
    }

    /// Where in the file: `the file`, `"version"`, `"connections" → "board" → "type"`.
    static func place(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "the file" : path.map { "\"\($0.stringValue)\"" }.joined(separator: " → ")
    }

    /// What a JSON value of `type` is called.
    static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "text"
        case is Int.Type: return "a whole number"
        default: return "an object ({…})"
        }
    }
}
