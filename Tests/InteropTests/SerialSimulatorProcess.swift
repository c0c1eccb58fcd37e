import Foundation

/// `mcumgr-sim --serial` running as a child process on a new pseudo-terminal.
final class SerialSimulatorProcess: Sendable {
    /// The pty's slave, as printed on the simulator's "serial: PATH" line.
    let path: String
    let child: ChildProcess
    let stdoutURL: URL
    let stderrURL: URL

    private init(path: String, child: ChildProcess, stdoutURL: URL, stderrURL: URL) {
        self.path = path
        self.child = child
        self.stdoutURL = stdoutURL
        self.stderrURL = stderrURL
    }

    /// Starts the simulator on a new pty and waits for its "serial: PATH" line.
    static func launch(arguments: [String] = []) async throws -> SerialSimulatorProcess {
        try Interop.requirePeers()
        let binary = try Interop.simulatorBinary()
        let directory = try Interop.temporaryDirectory("serial-sim")
        let out = directory.appendingPathComponent("stdout")
        let err = directory.appendingPathComponent("stderr")
        let child = try Subprocess.launch(
            binary, ["--serial", "--boot-time", "200", "--reset-delay", "50", "--exit-on-eof"] + arguments,
            stdout: out, stderr: err, lifeline: true)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("serial: ") }) {
                let path = String(line.dropFirst("serial: ".count))
                return SerialSimulatorProcess(path: path, child: child, stdoutURL: out, stderrURL: err)
            }
            if !child.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        child.terminate()
        let log = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        throw InteropError("mcumgr-sim did not print its serial path:\n\(log)")
    }

    /// The simulator's request log (standard error).
    var log: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Sends SIGTERM and returns the exit status.
    @discardableResult
    func stop() async -> Int32 {
        child.terminate()
        return await child.exitStatus()
    }

    /// Runs `smpmgr --port PATH …`.
    func smpmgr(_ arguments: String...) async throws -> ProcessOutput {
        try await Subprocess.run(Interop.smpmgr, ["--port", path, "--timeout", "5"] + arguments, timeout: .seconds(300))
    }

    /// Runs a peer script with the pty path as its first argument, then `extra`.
    func python(_ script: String, _ extra: String...) async throws -> ProcessOutput {
        let directory = try Interop.temporaryDirectory("py")
        let file = directory.appendingPathComponent("peer.py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await Subprocess.run(Interop.python, [file.path, path] + extra, timeout: .seconds(300))
    }
}
