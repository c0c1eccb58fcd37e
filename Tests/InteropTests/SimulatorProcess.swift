import Foundation
import SMPTestSupport

extension SimulatorProcess {
    /// Starts the simulator on `host:1337` (smpmgr's fixed port) with quick reboots, logging requests.
    static func launch(host: String, arguments: [String] = []) async throws -> SimulatorProcess {
        try BuiltProducts.requirePeers()
        return try await start(["--boot-time", "200", "--reset-delay", "50"] + arguments, endpoint: "\(host):1337", logsRequests: true)
    }

    /// Starts `mcumgr-sim --serial` on a new pty with quick reboots, logging requests.
    static func launchSerial(arguments: [String] = []) async throws -> SimulatorProcess {
        try BuiltProducts.requirePeers()
        return try await startSerial(["--boot-time", "200", "--reset-delay", "50"] + arguments)
    }

    /// Runs `smpmgr` against this simulator: `--ip HOST` over UDP, `--port PATH` on a pty.
    func smpmgr(_ arguments: String...) async throws -> ProcessOutput {
        if let path = serialPath {
            return try await Subprocess.run(Interop.smpmgr, ["--port", path, "--timeout", "5"] + arguments, timeout: .seconds(300))
        }
        return try await Subprocess.run(Interop.smpmgr, ["--ip", host, "--timeout", "3"] + arguments)
    }

    /// Runs a peer script with the simulator's host (or pty path) as its first argument, then `extra`.
    func python(_ script: String, _ extra: String...) async throws -> ProcessOutput {
        let directory = try Subprocess.temporaryDirectory("py")
        let file = directory.appendingPathComponent("peer.py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await Subprocess.run(Interop.python, [file.path, serialPath ?? host] + extra, timeout: .seconds(300))
    }

    /// Stops the simulator and returns its exit status.
    @discardableResult
    func stop() async -> Int32 {
        await stopAndWait()
    }
}
