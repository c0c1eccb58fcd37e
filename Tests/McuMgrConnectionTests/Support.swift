import SMPTestSupport
import Testing

/// Runs `python3 -c script arguments…` and returns its standard output; a non-zero exit is a test failure.
func python(_ script: String, _ arguments: [String] = []) async throws -> String {
    let result = try await Subprocess.run("/usr/bin/env", ["python3", "-c", script] + arguments, timeout: .seconds(120))
    #expect(result.status == 0, "python3 failed: \(result)")
    return result.stdout
}
