import Foundation

/// Runs Python programs with the package's venv interpreter, without blocking the test's threads.
enum PythonPeer {
    /// The package root, from this file's real location.
    static let root: String = {
        let file = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        return file.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }()

    /// The venv's python.
    static var python: String { root + "/.venv/bin/python" }

    /// What a finished program left.
    struct Output: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String

        /// The last line of standard output as a JSON object.
        func json() throws -> [String: Any] {
            guard let line = stdout.split(separator: "\n").last,
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else { throw PeerError("no JSON object on the last line of:\n\(stdout)\n\(stderr)") }
            return object
        }
    }

    /// Writes `script` to a temporary file and runs it with `arguments`; `input` (when given) is
    /// written to a file whose path is the first argument.
    static func run(_ script: String, input: Data? = nil, arguments: [String] = [], timeout: Duration = .seconds(120)) async throws -> Output {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw PeerError("\(python) is missing: the Python peers are not installed (scripts/bootstrap.sh creates .venv)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smp-serial-py-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scriptURL = directory.appendingPathComponent("peer.py")
        try script.write(to: scriptURL, atomically: true, encoding: .utf8)
        var arguments = arguments
        if let input {
            let inputURL = directory.appendingPathComponent("input.json")
            try input.write(to: inputURL)
            arguments.insert(inputURL.path, at: 0)
        }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [scriptURL.path] + arguments
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        let running = RunningProcess(process)
        let timer = Task {
            try? await Task.sleep(for: timeout)
            running.terminateIfRunning()
        }
        defer { timer.cancel() }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return Output(
            status: status,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}

/// A started process the timeout may stop (only while it runs).
final class RunningProcess: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }

    func terminateIfRunning() {
        if process.isRunning { process.terminate() }
    }
}

/// A failed precondition of a test, with a message a person can act on.
struct PeerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
