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

    /// Runs a Python `script` with `input` on standard input.
    static func run(_ script: String, input: String) async throws -> String {
        try await run(interpreter, ["-c", script], input: input)
    }

    /// Runs `executable` with `input` on standard input; returns standard output, or throws with
    /// standard error. Output goes through files and the exit is awaited through the termination
    /// handler, so no thread of the concurrency pool ever blocks on the child.
    static func run(_ executable: String, _ arguments: [String], input: String = "") async throws -> String {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw Failure(description: "\(executable) is missing: run scripts/bootstrap.sh to create the venv")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("python-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inURL = directory.appendingPathComponent("stdin")
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        try Data(input.utf8).write(to: inURL)
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let finished = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished.continuation.yield($0.terminationStatus) }
        try process.run()
        var status: Int32 = -1
        for await code in finished.stream {
            status = code
            break
        }
        let output = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let errors = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
            throw Failure(description: "\(executable) exited with \(status): \(errors)")
        }
        return output
    }
}
