import Foundation

/// Runs a Python program with the package's venv interpreter (where bumble is installed).
enum Python {
    /// The venv's python, found from this file's location.
    static let interpreter: String = {
        var url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent(".venv/bin/python").path
    }()

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `script` with `input` on standard input; returns standard output, or throws with standard error.
    static func run(_ script: String, input: String) async throws -> String {
        guard FileManager.default.isExecutableFile(atPath: interpreter) else {
            throw Failure(description: "\(interpreter) is missing: run scripts/bootstrap.sh to create the venv")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: interpreter)
        process.arguments = ["-c", script]
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
        // Read both pipes to the end on their own threads, so a full pipe never blocks the child.
        async let out = Task.detached { stdout.fileHandleForReading.readDataToEndOfFile() }.value
        async let err = Task.detached { stderr.fileHandleForReading.readDataToEndOfFile() }.value
        let (output, errors) = await (out, err)
        var status: Int32 = -1
        for await code in finished.stream {
            status = code
            break
        }
        guard status == 0 else {
            throw Failure(description: "python exited with \(status): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }
}
