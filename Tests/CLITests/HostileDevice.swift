import Foundation
import Testing

/// `scripts/hostile-device.py` (Python standard library only) serving UDP on 127.0.0.1 at a port of
/// its own: a device that answers every request with a matching header and the malformed answer
/// `kind` names (see the script). An independent peer, not our own encoder.
final class HostileDevice: @unchecked Sendable {
    let process: Process
    let port: Int
    private let lifeline: Pipe

    /// `--udp` argument for `mcumgr`.
    var address: String { "127.0.0.1:\(port)" }

    private init(process: Process, port: Int, lifeline: Pipe) {
        self.process = process
        self.port = port
        self.lifeline = lifeline
    }

    /// The Python interpreter: the project venv's, else the first `python3` on the path.
    static let python: String? = {
        let venv = CLI.packageRoot.appendingPathComponent(".venv/bin/python").path
        if FileManager.default.isExecutableFile(atPath: venv) { return venv }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Starts the device answering with `kind` and waits for its "listening on" line.
    static func start(answering kind: String) async throws -> HostileDevice {
        let python = try #require(python, "python3 is needed for the hostile device")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            CLI.packageRoot.appendingPathComponent("scripts/hostile-device.py").path, "--answer", kind, "--exit-on-eof",
        ]
        let directory = CLI.temporaryDirectory()
        let outURL = directory.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let lifeline = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = lifeline
        try process.run()
        try? out.close()
        let deadline = ContinuousClock.now + .seconds(20)
        var text = ""
        while ContinuousClock.now < deadline, process.isRunning {
            text = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
            if text.contains("\n") { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        guard let range = text.range(of: "listening on "),
              let port = Int(text[range.upperBound...].split(separator: "\n").first?.split(separator: ":").last ?? "")
        else {
            process.terminate()
            throw CLIError.simulatorDidNotStart(text)
        }
        return HostileDevice(process: process, port: port, lifeline: lifeline)
    }

    /// Stops the device.
    func stop() {
        if process.isRunning { process.terminate() }
        try? lifeline.fileHandleForWriting.close()
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
