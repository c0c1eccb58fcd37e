import Foundation
import SMP

/// `mcumgr-sim` running as a child process, serving UDP, a pseudo-terminal, or Bluetooth LE on an HCI controller.
///
/// It is started with `--exit-on-eof` and a lifeline on its standard input, so it never
/// outlives a crashed test run, and waited for until it prints where it serves (`listening on
/// HOST:PORT`, read back so that `HOST:0` gives a free port; `serial: PATH`; or `advertising as ADDRESS`).
public final class SimulatorProcess: Sendable {
    /// Where a simulator serves.
    public enum Endpoint: Sendable, Hashable {
        /// UDP on a host and port.
        case udp(host: String, port: Int)
        /// A pseudo-terminal (its slave path).
        case serial(path: String)
        /// A Bluetooth LE peripheral on an HCI controller, advertising from this address (random).
        case ble(address: String)
    }

    /// Where it serves.
    public let endpoint: Endpoint
    /// The UDP host it listens on ("" on a pty).
    public var host: String { if case .udp(let host, _) = endpoint { return host } else { return "" } }
    /// The UDP port it listens on (0 on a pty).
    public var port: Int { if case .udp(_, let port) = endpoint { return port } else { return 0 } }
    /// The pty path it serves (nil over UDP).
    public var serialPath: String? { if case .serial(let path) = endpoint { return path } else { return nil } }
    /// The child process.
    public let child: ChildProcess
    /// Its standard output.
    public var stdoutURL: URL { child.stdoutURL }
    /// Its standard error: the request log when it logs (see `start`).
    public let stderrURL: URL

    private init(endpoint: Endpoint, child: ChildProcess, stderrURL: URL) {
        self.endpoint = endpoint
        self.child = child
        self.stderrURL = stderrURL
    }

    /// `HOST:PORT` (`[HOST]:PORT` for IPv6), as `mcumgr --udp` takes it.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// How long a simulator may take to say it listens (generous: a loaded machine is slow to start
    /// processes), times ``TestTimeScale``.
    public static let startLimit = TestTimeScale.scaled(.seconds(90))

    /// Starts `mcumgr-sim --udp endpoint` with extra `arguments` and waits for its `listening on`
    /// line. Unless `logsRequests`, it runs `--quiet`; with it, standard error holds one line per
    /// request (``requestLog``).
    public static func start(_ arguments: [String] = [], endpoint: String = "127.0.0.1:0", logsRequests: Bool = false) async throws -> SimulatorProcess {
        let host = endpoint.hasPrefix("[") ? String(endpoint.dropFirst().prefix { $0 != "]" }) : String(endpoint.prefix { $0 != ":" })
        return try await launch(["--udp", endpoint] + arguments, logsRequests: logsRequests) { text in
            guard let range = text.range(of: "listening on "),
                  let line = text[range.upperBound...].split(separator: "\n").first,
                  let port = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            else { return nil }
            return .udp(host: host, port: port)
        }
    }

    /// Starts `mcumgr-sim --serial` (a new pty) with extra `arguments` and waits for its `serial: PATH` line.
    public static func startSerial(_ arguments: [String] = [], logsRequests: Bool = true) async throws -> SimulatorProcess {
        try await launch(["--serial"] + arguments, logsRequests: logsRequests) { text in
            text.split(separator: "\n").first { $0.hasPrefix("serial: ") }.map { .serial(path: String($0.dropFirst("serial: ".count))) }
        }
    }

    /// Starts `mcumgr-sim --hci controller` (a peripheral through our LE host) with extra
    /// `arguments` and waits for its `advertising as ADDRESS (random) …` line.
    public static func startPeripheral(controller: String, _ arguments: [String] = [], logsRequests: Bool = true) async throws -> SimulatorProcess {
        try await launch(["--hci", controller] + arguments, logsRequests: logsRequests) { text in
            text.split(separator: "\n").first { $0.hasPrefix("advertising as ") }
                .flatMap { $0.dropFirst("advertising as ".count).split(separator: " ").first }.map { .ble(address: String($0)) }
        }
    }

    private static func launch(_ arguments: [String], logsRequests: Bool, ready: (String) -> Endpoint?) async throws -> SimulatorProcess {
        let binary = try BuiltProducts.require("mcumgr-sim")
        let directory = try Subprocess.temporaryDirectory("sim")
        let out = directory.appendingPathComponent("stdout")
        let err = directory.appendingPathComponent("stderr")
        let child = try Subprocess.launch(
            binary, arguments + ["--exit-on-eof"] + (logsRequests ? [] : ["--quiet"]), stdout: out, stderr: err, lifeline: true)
        if let endpoint = try await child.awaitOutput(within: startLimit, { $0.contains("\n") ? ready($0) : nil }) {
            return SimulatorProcess(endpoint: endpoint, child: child, stderrURL: err)
        }
        child.terminate()
        throw ProcessError("mcumgr-sim \(arguments) did not say where it serves:\n\(child.stdout)\n\(child.stderr)")
    }

    /// What it printed on standard output so far.
    public var stdout: String { child.stdout }

    /// Its log (standard error) so far.
    public var log: String { child.stderr }

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
