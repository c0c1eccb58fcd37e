import SMPTestSupport
import Testing

/// Checks shared by the command-line tests.
enum Expect {
    /// The run succeeded.
    static func success(_ result: CLI.Result, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
    }

    /// The run failed with `status` and exactly one line on standard error, naming no stack trace.
    static func failure(_ result: CLI.Result, status: Int32, mentioning text: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        let lines = result.stderrLines.filter { !$0.hasPrefix("mcumgr: no connection named") && !$0.hasPrefix("mcumgr: talking to") }
        #expect(lines.count == 1, "expected one line on standard error: \(result)", sourceLocation: sourceLocation)
        #expect(lines.first?.hasPrefix("mcumgr: error: ") == true, "\(result)", sourceLocation: sourceLocation)
        for trace in ["Stack dump", "Fatal error", "Current stack trace", "backtrace", "Swift/"] {
            #expect(!result.stderr.contains(trace), "\(result)", sourceLocation: sourceLocation)
        }
        if let text {
            #expect(result.stderr.contains(text), "\(result)", sourceLocation: sourceLocation)
        }
    }
}
