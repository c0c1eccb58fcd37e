import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where the peers and the simulator binary are, and a way to say what is missing.
enum Interop {
    /// The package root, found from this file's real location (symlinks resolved).
    static let root: String = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
        let real = realpath(file, nil).map { pointer -> String in
            defer { free(pointer) }
            return String(cString: pointer)
        } ?? file
        return URL(fileURLWithPath: real).deletingLastPathComponent().deletingLastPathComponent().path
    }()

    static var venv: String { root + "/.venv/bin" }
    static var python: String { venv + "/python" }
    static var smpmgr: String { venv + "/smpmgr" }
    static var imgtool: String { venv + "/imgtool" }

    /// Fails with a message naming the fix when the Python peers are not installed.
    static func requirePeers() throws {
        for tool in [python, smpmgr, imgtool] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw InteropError("\(tool) is missing: the Python peers are not installed; run `make test` (scripts/bootstrap.sh creates .venv)")
        }
    }

    /// The `mcumgr-sim` executable: `$MCUMGR_SIM`, else next to the test bundle in the build products.
    static func simulatorBinary() throws -> String {
        if let path = ProcessInfo.processInfo.environment["MCUMGR_SIM"], FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var directory = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("mcumgr-sim").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw InteropError("mcumgr-sim was not found next to \(exe); build it with `swift build --product mcumgr-sim` or set MCUMGR_SIM")
    }

    /// A fresh temporary directory.
    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("smp-interop-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A failed precondition of an interop test, with a message a person can act on.
struct InteropError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What a finished child process left behind.
struct ProcessOutput: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String

    /// The last line of standard output parsed as a JSON object.
    func json() throws -> [String: Any] {
        guard let line = stdout.split(separator: "\n").last,
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { throw InteropError("no JSON object on the last line of:\n\(stdout)\n\(stderr)") }
        return object
    }
}

/// Runs programs without blocking the test's threads.
enum Subprocess {
    /// Runs `executable` with `arguments` and waits (at most `timeout`) for it to exit.
    static func run(
        _ executable: String, _ arguments: [String], environment extra: [String: String] = [:],
        timeout: Duration = .seconds(120)
    ) async throws -> ProcessOutput {
        let directory = try Interop.temporaryDirectory("run")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        let process = try launch(executable, arguments, stdout: outURL, stderr: errURL, environment: extra)
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if process.isRunning { process.terminate() }
        }
        let status = await process.exitStatus()
        timer.cancel()
        let out = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return ProcessOutput(status: status, stdout: out, stderr: err)
    }

    /// Starts a process with its output going to files.
    /// With `lifeline`, standard input is a pipe the test process holds open: if the test process
    /// dies, the child sees end of input (`mcumgr-sim --exit-on-eof` then stops).
    static func launch(
        _ executable: String, _ arguments: [String], stdout: URL, stderr: URL, environment extra: [String: String] = [:],
        lifeline: Bool = false
    ) throws -> ChildProcess {
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "250"
        environment["NO_COLOR"] = "1"
        environment["TERM"] = "dumb"
        environment["PYTHONUNBUFFERED"] = "1"
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        let pipe = lifeline ? Pipe() : nil
        process.standardInput = pipe ?? FileHandle.nullDevice
        let child = ChildProcess(process, lifeline: pipe)
        try process.run()
        return child
    }
}

/// A running child process whose exit can be awaited.
final class ChildProcess: @unchecked Sendable {
    private let process: Process
    /// Kept open for the child's life; closes when this process exits.
    private let lifeline: Pipe?
    private let lock = NSLock()
    private var status: Int32?
    private var waiters: [CheckedContinuation<Int32, Never>] = []

    init(_ process: Process, lifeline: Pipe? = nil) {
        self.process = process
        self.lifeline = lifeline
        process.terminationHandler = { [weak self] finished in
            self?.finished(finished.terminationStatus)
        }
    }

    var processIdentifier: Int32 { process.processIdentifier }
    var isRunning: Bool { lock.withLock { status == nil } }

    /// Sends SIGTERM.
    func terminate() {
        if isRunning { kill(process.processIdentifier, SIGTERM) }
    }

    /// Waits for the exit status.
    func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            let done: Int32? = lock.withLock {
                if let status { return status }
                waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    private func finished(_ code: Int32) {
        let toResume: [CheckedContinuation<Int32, Never>] = lock.withLock {
            status = code
            defer { waiters = [] }
            return waiters
        }
        for waiter in toResume { waiter.resume(returning: code) }
    }
}
