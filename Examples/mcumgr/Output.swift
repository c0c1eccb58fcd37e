import McuMgrConnection
import McuMgrTools
import Synchronization

/// Where a command's result goes: a human-readable text on standard output, or, with `--json`,
/// one JSON document (keys sorted, hashes as lowercase hex) on standard output.
struct Output: Sendable {
    /// Print JSON instead of text.
    let json: Bool

    /// Prints `value` as JSON with `--json`, else the text `human()` makes (nothing when it is empty).
    func emit(_ value: some Encodable, human: () -> String) throws {
        if json {
            Output.printDocument(try JSONOutput.encode(value))
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

    /// Whether a JSON document went to standard output: a failure after it (a conformance or
    /// fleet report with a non-zero status) prints no second document.
    static let printedDocument = Atomic(false)

    /// Prints `document` on standard output and notes that it did.
    static func printDocument(_ document: String) {
        printedDocument.store(true, ordering: .relaxed)
        Console.out(document)
    }
}

/// The JSON answer of a command that returns no data: `{"ok": true}` and what was done.
struct Done: Encodable {
    /// Always true: failures exit with a non-zero status instead.
    let ok = true
    /// What was done, e.g. `"reset"`.
    let action: String
    /// Extra details, by name.
    var details: [String: JSONValue] = [:]

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        try c.encode(ok, forKey: AnyCodingKey("ok"))
        try c.encode(action, forKey: AnyCodingKey("action"))
        for (key, value) in details {
            try c.encode(value, forKey: AnyCodingKey(key))
        }
    }
}
