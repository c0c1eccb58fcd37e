import Foundation

/// `mcumgr-sim` running as a child process on `host:1337`.
final class SimulatorProcess: Sendable {
    let host: String
    let child: ChildProcess
    let stdoutURL: URL
    let stderrURL: URL

    private init(host: String, child: ChildProcess, stdoutURL: URL, stderrURL: URL) {
        self.host = host
        self.child = child
        self.stdoutURL = stdoutURL
        self.stderrURL = stderrURL
    }

    /// Starts the simulator on `host:1337` and waits for its "listening on" line.
    static func launch(host: String, arguments: [String] = []) async throws -> SimulatorProcess {
        try Interop.requirePeers()
        let binary = try Interop.simulatorBinary()
        let directory = try Interop.temporaryDirectory("sim-\(host)")
        let out = directory.appendingPathComponent("stdout")
        let err = directory.appendingPathComponent("stderr")
        let child = try Subprocess.launch(
            binary, ["--udp", "\(host):1337", "--boot-time", "200", "--reset-delay", "50", "--exit-on-eof"] + arguments,
            stdout: out, stderr: err, lifeline: true)
        let simulator = SimulatorProcess(host: host, child: child, stdoutURL: out, stderrURL: err)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if simulator.stdout.contains("listening on \(host):1337") { return simulator }
            if !child.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        child.terminate()
        throw InteropError("mcumgr-sim did not report listening on \(host):1337:\n\(simulator.stdout)\n\(simulator.log)")
    }

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }

    /// The simulator's request log (standard error).
    var log: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Sends SIGTERM and returns the exit status.
    @discardableResult
    func stop() async -> Int32 {
        child.terminate()
        return await child.exitStatus()
    }

    /// Runs `smpmgr --ip host …`.
    func smpmgr(_ arguments: String...) async throws -> ProcessOutput {
        try await Subprocess.run(Interop.smpmgr, ["--ip", host, "--timeout", "3"] + arguments)
    }

    /// Runs a peer script with the host as its first argument, then `extra`.
    func python(_ script: String, _ extra: String...) async throws -> ProcessOutput {
        let directory = try Interop.temporaryDirectory("py")
        let path = directory.appendingPathComponent("peer.py")
        try script.write(to: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await Subprocess.run(Interop.python, [path.path, host] + extra, timeout: .seconds(180))
    }
}
