import Foundation

/// Where a command's result goes: a human-readable text on standard output, or, with `--json`,
/// one JSON document (keys sorted, hashes as lowercase hex) on standard output.
struct Output: Sendable {
    /// Print JSON instead of text.
    let json: Bool

    /// Prints `value` as JSON with `--json`, else the text `human()` makes (nothing when it is empty).
    func emit(_ value: some Encodable, human: () -> String) throws {
        if json {
            Console.out(try Self.encode(value))
        } else {
            let text = human()
            if !text.isEmpty { Console.out(text) }
        }
    }

    /// Prints a line of human-readable progress or commentary: on standard output normally,
    /// on standard error with `--json` (standard output then holds only the JSON document).
    func note(_ line: String) {
        if json { Console.err(line) } else { Console.out(line) }
    }

    /// The file descriptor progress displays write to.
    var progressDescriptor: Int32 { json ? Console.standardError : Console.standardOutput }

    /// `value` as pretty-printed JSON with sorted keys.
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let data = try encoder.encode(value)
        return String(decoding: data, as: UTF8.self)
    }
}

/// The JSON answer of a command that returns no data: `{"ok": true}` and what was done.
struct Done: Encodable {
    /// Always true: failures exit with a non-zero status instead.
    let ok = true
    /// What was done, e.g. `"reset"`.
    let action: String
    /// Extra details, by name.
    var details: [String: JSONScalar] = [:]

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: DynamicKey.self)
        try c.encode(ok, forKey: DynamicKey("ok"))
        try c.encode(action, forKey: DynamicKey("action"))
        for (key, value) in details {
            try c.encode(value, forKey: DynamicKey(key))
        }
    }
}

/// A string, number, boolean or null in a JSON answer.
enum JSONScalar: Encodable, Sendable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let v): try c.encode(v)
        case .int(let v): try c.encode(v)
        case .bool(let v): try c.encode(v)
        case .null: try c.encodeNil()
        }
    }
}

/// A coding key made from any string.
struct DynamicKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
