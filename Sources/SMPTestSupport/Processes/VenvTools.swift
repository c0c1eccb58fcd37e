import Foundation

extension Subprocess {
    /// Runs `script` with the venv's Python (`python -c script [INPUT] arguments…`) and returns what it
    /// left; `input`, when given, is written to a file whose path is the first argument
    /// (`sys.argv[1]`). Throws, with its standard error, when the venv is missing or the script fails.
    public static func python(
        _ script: String, input: Data? = nil, arguments: [String] = [], timeout: Duration = .seconds(120)
    ) async throws -> ProcessOutput {
        let directory = try temporaryDirectory("python")
        defer { try? FileManager.default.removeItem(at: directory) }
        var arguments = arguments
        if let input {
            let inputURL = directory.appendingPathComponent("input")
            try input.write(to: inputURL)
            arguments.insert(inputURL.path, at: 0)
        }
        return try await venvTool("python", ["-c", script] + arguments, timeout: timeout)
    }

    /// Runs the venv's tool `name` (`imgtool`, `smpmgr`, …) and returns what it left; throws, with its
    /// standard error, when the venv is missing or the tool exits with a failure.
    public static func venvTool(_ name: String, _ arguments: [String], timeout: Duration = .seconds(180)) async throws -> ProcessOutput {
        try BuiltProducts.requirePeers([name])
        let output = try await run(BuiltProducts.venvTool(name), arguments, timeout: timeout)
        guard output.status == 0 else { throw ProcessError("\(name) failed:\n\(output)") }
        return output
    }
}
