import Foundation
import SMP

/// `mcumgr-sim` running as a child process, serving UDP.
///
/// It is started with `--exit-on-eof` and a lifeline on its standard input, so it never
/// outlives a crashed test run, and waited for until it prints its `listening on` line (the port
/// is read from there, so `HOST:0` gives a free port).
public final class SimulatorProcess: Sendable {
    /// The host it listens on.
    public let host: String
    /// The port it listens on.
    public let port: Int
    /// The child process.
    public let child: ChildProcess
    /// Its standard output.
    public let stdoutURL: URL
    /// Its standard error: the request log when it logs (see `start`).
    public let stderrURL: URL

    private init(host: String, port: Int, child: ChildProcess, stdoutURL: URL, stderrURL: URL) {
        self.host = host
        self.port = port
        self.child = child
        self.stdoutURL = stdoutURL
        self.stderrURL = stderrURL
    }

    /// `HOST:PORT` (`[HOST]:PORT` for IPv6), as `mcumgr --udp` takes it.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// How long a simulator may take to say it listens (generous: a loaded machine is slow to start processes).
    public static let startLimit = Duration.seconds(90)

    /// Starts `mcumgr-sim --udp endpoint` with extra `arguments` and waits for its `listening on`
    /// line. Unless `logsRequests`, it runs `--quiet`; with it, standard error holds one line per
    /// request (``requestLog``).
    public static func start(_ arguments: [String] = [], endpoint: String = "127.0.0.1:0", logsRequests: Bool = false) async throws -> SimulatorProcess {
        let binary = try BuiltProducts.require("mcumgr-sim")
        let directory = try Subprocess.temporaryDirectory("sim")
        let out = directory.appendingPathComponent("stdout")
        let err = directory.appendingPathComponent("stderr")
        let child = try Subprocess.launch(
            binary, ["--udp", endpoint, "--exit-on-eof"] + (logsRequests ? [] : ["--quiet"]) + arguments,
            stdout: out, stderr: err, lifeline: true)
        let clock = SMPClock.continuous
        let deadline = clock.now + startLimit
        var text = ""
        while clock.now < deadline, child.isRunning {
            text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            if text.contains("listening on "), text.contains("\n") { break }
            try await clock.sleep(for: .milliseconds(10))
        }
        let log = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        guard let range = text.range(of: "listening on "),
              let line = text[range.upperBound...].split(separator: "\n").first,
              let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        else {
            child.terminate()
            throw ProcessError("mcumgr-sim \(arguments) did not report listening on \(endpoint):\n\(text)\n\(log)")
        }
        let host = endpoint.hasPrefix("[") ? String(endpoint.dropFirst().prefix { $0 != "]" }) : String(endpoint.prefix { $0 != ":" })
        return SimulatorProcess(host: host, port: port, child: child, stdoutURL: out, stderrURL: err)
    }

    /// What it printed on standard output so far.
    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }

    /// Its log (standard error) so far.
    public var log: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// The request lines of the log (`+12ms seq=3 v2 write group=1 cmd=1 len=… -> ok`).
    public var requestLog: [String] { log.split(separator: "\n").map(String.init).filter { $0.contains(" group=") } }

    /// Stops it (SIGTERM and the closed lifeline) without waiting.
    public func stop() {
        child.terminate()
        child.closeLifeline()
    }

    /// Stops it and returns its exit status.
    @discardableResult
    public func stopAndWait() async -> Int32 {
        stop()
        return await child.exitStatus()
    }

    deinit { stop() }
}

/// Runs `body` with a fresh simulator, and stops it after.
public func withSimulator<T>(
    _ arguments: [String] = [], endpoint: String = "127.0.0.1:0", logsRequests: Bool = false,
    _ body: (SimulatorProcess) async throws -> T
) async throws -> T {
    let simulator = try await SimulatorProcess.start(arguments, endpoint: endpoint, logsRequests: logsRequests)
    defer { simulator.stop() }
    return try await body(simulator)
}
