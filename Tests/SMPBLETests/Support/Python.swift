import Foundation

/// Runs the package venv's Python tools (bumble, imgtool).
enum Python {
    /// The venv's bin directory, found from this file's location.
    static let bin: String = {
        var url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent(".venv/bin").path
    }()

    /// A program in the venv.
    static func venvBinary(_ name: String) -> String { bin + "/" + name }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs a Python `script` with `input` on standard input.
    static func script(_ script: String, input: String = "") async throws -> String {
        try await run(venvBinary("python"), ["-c", script], input: input)
    }

    /// Runs `executable`; returns standard output, or throws with standard error.
    static func run(_ executable: String, _ arguments: [String], input: String = "") async throws -> String {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw Failure(description: "\(executable) is missing: run scripts/bootstrap.sh to create the venv")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let finished = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished.continuation.yield($0.terminationStatus) }
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        async let out = Task.detached { stdout.fileHandleForReading.readDataToEndOfFile() }.value
        async let err = Task.detached { stderr.fileHandleForReading.readDataToEndOfFile() }.value
        let (output, errors) = await (out, err)
        var status: Int32 = -1
        for await code in finished.stream {
            status = code
            break
        }
        guard status == 0 else {
            throw Failure(description: "\(executable) exited with \(status): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }
}
