import Foundation
import SMPTestSupport

extension SimulatorProcess {
    /// Starts the simulator on `host:1337` (smpmgr's fixed port) with quick reboots, logging requests.
    static func launch(host: String, arguments: [String] = []) async throws -> SimulatorProcess {
        try BuiltProducts.requirePeers()
        return try await start(["--boot-time", "200", "--reset-delay", "50"] + arguments, endpoint: "\(host):1337", logsRequests: true)
    }

    /// Runs `smpmgr --ip host …`.
    func smpmgr(_ arguments: String...) async throws -> ProcessOutput {
        try await Subprocess.run(Interop.smpmgr, ["--ip", host, "--timeout", "3"] + arguments)
    }

    /// Runs a peer script with the host as its first argument, then `extra`.
    func python(_ script: String, _ extra: String...) async throws -> ProcessOutput {
        let directory = try Subprocess.temporaryDirectory("py")
        let path = directory.appendingPathComponent("peer.py")
        try script.write(to: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await Subprocess.run(Interop.python, [path.path, host] + extra, timeout: .seconds(180))
    }

    /// Stops the simulator and returns its exit status.
    @discardableResult
    func stop() async -> Int32 {
        await stopAndWait()
    }
}
