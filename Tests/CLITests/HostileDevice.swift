import Foundation
import SMPTestSupport
import Testing

/// `scripts/hostile-device.py` (Python standard library only) serving UDP on 127.0.0.1 at a port of
/// its own: a device that answers every request with a matching header and the malformed answer
/// `kind` names (see the script). An independent peer, not our own encoder.
final class HostileDevice: Sendable {
    let child: ChildProcess
    let port: Int

    /// `--udp` argument for `mcumgr`.
    var address: String { "127.0.0.1:\(port)" }

    private init(child: ChildProcess, port: Int) {
        self.child = child
        self.port = port
    }

    /// The Python interpreter: the project venv's, else the first `python3` on the path.
    static let python: String? = {
        let venv = BuiltProducts.venvTool("python")
        if FileManager.default.isExecutableFile(atPath: venv) { return venv }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Starts the device answering with `kind` and waits for its "listening on" line.
    static func start(answering kind: String) async throws -> HostileDevice {
        let (child, port) = try await launchListening("hostile-device.py", ["--answer", kind], what: "the hostile device")
        return HostileDevice(child: child, port: port)
    }

    /// Starts `scripts/NAME` under python3 with `arguments` and a lifeline, and waits for the port of
    /// its "listening on HOST:PORT" line (the hostile device's and the hostile controller's way).
    static func launchListening(_ script: String, _ arguments: [String], what: String) async throws -> (ChildProcess, Int) {
        let python = try #require(python, "python3 is needed for \(what)")
        let directory = try Subprocess.temporaryDirectory("hostile")
        let child = try Subprocess.launch(
            python, [BuiltProducts.packageRoot.appendingPathComponent("scripts/\(script)").path, "--exit-on-eof"] + arguments,
            stdout: directory.appendingPathComponent("stdout"), stderr: directory.appendingPathComponent("stderr"), lifeline: true)
        let port = try await child.awaitOutput(within: SimulatorProcess.startLimit) { text -> Int? in
            guard text.contains("\n"), let range = text.range(of: "listening on "), let line = text[range.upperBound...].split(separator: "\n").first else { return nil }
            return line.split(separator: ":").last.flatMap { Int($0) }
        }
        guard let port else {
            child.terminate()
            throw ProcessError("\(what) did not say where it listens: \(child.stdout)\(child.stderr)")
        }
        return (child, port)
    }

    /// Stops the device (SIGTERM) and closes its lifeline.
    func stop() {
        child.terminate()
        child.closeLifeline()
    }

    deinit { stop() }

    /// Runs `mcumgr` against this device.
    func mcumgr(_ arguments: [String], timeout: Double = 60) async throws -> CLI.Result {
        try await CLI.mcumgr(["--udp", address] + arguments, timeout: timeout)
    }
}

/// Runs `body` with a fresh hostile device answering `kind`, and stops it after.
func withHostileDevice<T>(answering kind: String, _ body: (HostileDevice) async throws -> T) async throws -> T {
    let device = try await HostileDevice.start(answering: kind)
    defer { device.stop() }
    return try await body(device)
}
