import Foundation
import Glibc
import SMP

/// What a finished child process left behind.
public struct ProcessOutput: Sendable, CustomStringConvertible {
    /// The exit status, or the signal number when a signal ended it (`Process.terminationStatus`).
    public let status: Int32
    /// Everything it wrote on standard output.
    public let stdout: String
    /// Everything it wrote on standard error.
    public let stderr: String

    /// Makes an output.
    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    /// The status and both outputs, for failure messages.
    public var description: String { "exit \(status)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)" }

    /// The non-empty lines of standard error.
    public var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// Standard output (or, failing that, its last line) parsed as a JSON object.
    public func json() throws -> [String: Any] {
        for text in [stdout, stdout.split(separator: "\n").last.map(String.init) ?? ""] {
            if let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] { return object }
        }
        throw ProcessError("no JSON object on standard output:\n\(self)")
    }
}

/// Why a child process helper gave up, with a message a person can act on.
public struct ProcessError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// Makes an error.
    public init(_ description: String) { self.description = description }
}

/// Runs programs for tests without ever blocking a thread of the (two-thread) test pool: output
/// goes to files, and exits are awaited through termination handlers.
public enum Subprocess {
    /// Runs `executable` with `arguments` and waits (at most `timeout` times ``TestTimeScale``, then
    /// SIGKILL) for it to exit.
    public static func run(
        _ executable: String, _ arguments: [String], environment extra: [String: String] = [:],
        timeout: Duration = .seconds(180)
    ) async throws -> ProcessOutput {
        let timeout = TestTimeScale.scaled(timeout)
        let directory = try temporaryDirectory("run")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        let child = try launch(executable, arguments, stdout: outURL, stderr: errURL, environment: extra)
        let timer = SMPClock.continuous.task {
            try? await SMPClock.continuous.sleep(for: timeout)
            child.kill()
        }
        let status = await child.exitStatus()
        timer.cancel()
        let out = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return ProcessOutput(status: status, stdout: out, stderr: err)
    }

    /// Starts a process with its output going to files. With `lifeline`, standard input is a pipe
    /// this process holds open: if the test process dies, the child sees end of input
    /// (`mcumgr-sim --exit-on-eof` then stops), so no child outlives a crashed run.
    public static func launch(
        _ executable: String, _ arguments: [String], stdout: URL, stderr: URL?, environment extra: [String: String] = [:],
        lifeline: Bool = false
    ) throws -> ChildProcess {
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        if let stderr { _ = FileManager.default.createFile(atPath: stderr.path, contents: nil) }
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
        let out = try FileHandle(forWritingTo: stdout)
        let err = try stderr.map { try FileHandle(forWritingTo: $0) }
        process.standardOutput = out
        process.standardError = err ?? FileHandle.nullDevice
        let pipe = lifeline ? Pipe() : nil
        process.standardInput = pipe ?? FileHandle.nullDevice
        let child = ChildProcess(process, stdout: stdout, stderr: stderr, lifeline: pipe)
        try withNoSignalsBlocked { try process.run() }
        try? out.close()
        try? err?.close()
        return child
    }

    /// Runs `body` (a spawn) with no signal blocked on this thread, then restores the thread's mask.
    ///
    /// A child starts with the signal mask of the thread that spawned it, and `Process` does not
    /// reset it (no `POSIX_SPAWN_SETSIGMASK`). Swift's tasks run on Dispatch worker threads, which
    /// block SIGTERM and SIGINT: without this, a child whose signals take their default action
    /// (a Python script) would never see the SIGTERM that ``ChildProcess/terminate()`` sends.
    static func withNoSignalsBlocked<T>(_ body: () throws -> T) rethrows -> T {
        var none = sigset_t()
        var saved = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        return try body()
    }

    /// A fresh temporary directory named after `name`.
    public static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("smp-tests-\(name)-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A running child process whose exit can be awaited and whose output files can be read as it runs.
public final class ChildProcess: @unchecked Sendable {
    private let process: Process
    /// The file its standard output goes to.
    public let stdoutURL: URL
    /// The file its standard error goes to (nil: discarded).
    public let stderrURL: URL?
    /// Kept open for the child's life; closes when this process exits.
    private let lifeline: Pipe?
    private let lock = NSLock()
    private var status: Int32?
    private var waiters: [CheckedContinuation<Int32, Never>] = []

    init(_ process: Process, stdout: URL, stderr: URL?, lifeline: Pipe? = nil) {
        self.process = process
        self.stdoutURL = stdout
        self.stderrURL = stderr
        self.lifeline = lifeline
        process.terminationHandler = { [weak self] finished in
            self?.finished(finished.terminationStatus)
        }
    }

    /// The child's process id.
    public var processIdentifier: Int32 { process.processIdentifier }
    /// Whether it still runs.
    public var isRunning: Bool { lock.withLock { status == nil } }

    /// Sends SIGTERM.
    public func terminate() {
        if isRunning { Glibc.kill(process.processIdentifier, SIGTERM) }
    }

    /// Sends SIGKILL.
    public func kill() {
        if isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// Sends `signal`.
    public func signal(_ signal: Int32) {
        if isRunning { Glibc.kill(process.processIdentifier, signal) }
    }

    /// What it wrote on standard output so far.
    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }

    /// What it wrote on standard error so far ("" when discarded).
    public var stderr: String { stderrURL.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? "" }

    /// Reads standard output until `ready` finds in it what the caller waits for (a `listening on`
    /// line), and returns that; nil when the child exits first or `limit` passes.
    ///
    /// The output is read once more after the child exited or the limit passed, so a line printed
    /// while this task waited for a loaded machine to run it again still counts.
    public func awaitOutput<T>(within limit: Duration, _ ready: (String) -> T?) async throws -> T? {
        let clock = SMPClock.continuous
        let deadline = clock.now + limit
        while true {
            // Whether it ran and whether time was left are read before the output, which is then newer.
            let running = isRunning
            let late = clock.now >= deadline
            if let found = ready(stdout) { return found }
            if !running || late { return nil }
            try await clock.sleep(for: .milliseconds(10))
        }
    }

    /// Closes the lifeline (the child sees end of input).
    public func closeLifeline() {
        try? lifeline?.fileHandleForWriting.close()
    }

    /// Waits for the exit status.
    public func exitStatus() async -> Int32 {
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
