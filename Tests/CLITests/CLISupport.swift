import Foundation
import McuBoot
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `mcumgr` and `mcumgr-sim` executables.
///
/// The executables are looked up, in order, in `$MCUMGR_BIN_DIR`, in the directory of the
/// running test binary (SwiftPM puts every product of the package there, whichever scratch path
/// is in use), in the directory of the test bundle, and in the package's `.build/debug`.
enum CLI {
    /// The package's root directory.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Directories that may hold the built products.
    static let searchDirectories: [URL] = {
        var directories: [URL] = []
        if let dir = ProcessInfo.processInfo.environment["MCUMGR_BIN_DIR"], !dir.isEmpty {
            directories.append(URL(fileURLWithPath: dir))
        }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        if let first = CommandLine.arguments.first, first.contains("/") {
            directories.append(URL(fileURLWithPath: first).standardizedFileURL.deletingLastPathComponent())
        }
        let bundle = Bundle.main.bundleURL
        directories.append(bundle)
        directories.append(bundle.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        directories.append(packageRoot.appendingPathComponent(".build/debug"))
        return directories
    }()

    /// The path of the built executable `name`, or nil when it was not built.
    static func executable(_ name: String) -> String? {
        for directory in searchDirectories {
            let path = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// The path of `name`, or a recorded issue saying how to build it.
    static func require(_ name: String) throws -> String {
        guard let path = executable(name) else {
            let message = "the \(name) executable was not found in \(searchDirectories.map(\.path)); build it first with 'swift build --product \(name)' (same --scratch-path as the tests), or set MCUMGR_BIN_DIR"
            Issue.record(Comment(rawValue: message))
            throw CLIError.missingExecutable(name)
        }
        return path
    }

    /// What a run printed and how it ended.
    struct Result: CustomStringConvertible {
        let status: Int32
        let stdout: String
        let stderr: String

        var description: String { "exit \(status)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)" }

        /// Standard output parsed as a JSON object.
        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
                throw CLIError.notJSON(stdout)
            }
            return object
        }

        /// The non-empty lines of standard error.
        var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    /// Runs `mcumgr` with `arguments` and returns its exit status and output.
    static func mcumgr(_ arguments: [String], environment extra: [String: String] = [:], timeout: Double = 60) async throws -> Result {
        try await run(try require("mcumgr"), arguments, environment: extra, timeout: timeout)
    }

    /// Runs `executable` and waits for it (killing it after `timeout` seconds).
    ///
    /// Output goes to files and the exit is polled, so no thread of the (two-thread) test pool
    /// ever blocks on a child.
    static func run(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:], timeout: Double = 60) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["MCUMGR_CONFIG_DIR"] = isolatedConfigDirectory
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? out.close()
        try? err.close()
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                try await Task.sleep(for: .milliseconds(200))
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let o = (try? Data(contentsOf: outURL)) ?? Data()
        let e = (try? Data(contentsOf: errURL)) ?? Data()
        return Result(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// A profiles directory no run writes to unless a test asks (keeps the user's own profiles out of the tests).
    static let isolatedConfigDirectory = FileManager.default.temporaryDirectory
        .appendingPathComponent("mcumgr-cli-tests-\(UUID().uuidString)-config").path

    /// A fresh temporary directory.
    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mcumgr-cli-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Why a test helper gave up.
enum CLIError: Error {
    case missingExecutable(String)
    case simulatorDidNotStart(String)
    case notJSON(String)
}

/// A `mcumgr-sim` process serving UDP on 127.0.0.1 at a port of its own (the kernel picks a free
/// one: the simulator binds port 0 and prints the port it got).
final class SimulatorProcess: @unchecked Sendable {
    let process: Process
    /// The port the simulator listens on.
    let port: Int

    /// The host it listens on.
    let host: String

    /// `--udp` argument for `mcumgr`.
    var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    private let lifeline: Pipe

    /// Where the simulator logs each request it handles (started with `logsRequests`), else nil.
    let requestLogURL: URL?

    private init(process: Process, host: String, port: Int, lifeline: Pipe, requestLogURL: URL? = nil) {
        self.process = process
        self.host = host
        self.port = port
        self.lifeline = lifeline
        self.requestLogURL = requestLogURL
    }

    /// The simulator's request lines so far (`+12ms seq=3 v2 write group=1 cmd=1 len=… -> ok`); needs `logsRequests`.
    var requestLog: [String] {
        guard let requestLogURL, let data = try? Data(contentsOf: requestLogURL) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).filter { $0.contains(" group=") }
    }

    /// Starts the simulator with extra `arguments` and waits for its "listening on" line.
    ///
    /// Its standard input is a pipe this process holds: if the test process dies, the simulator
    /// sees end of input and stops (`--exit-on-eof`), so no simulator outlives a crashed run.
    /// With `logsRequests`, the simulator logs every request to a file (see ``requestLog``).
    static func start(_ arguments: [String] = [], endpoint: String = "127.0.0.1:0", logsRequests: Bool = false) async throws -> SimulatorProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CLI.require("mcumgr-sim"))
        process.arguments = ["--udp", endpoint, "--exit-on-eof"] + (logsRequests ? [] : ["--quiet"]) + arguments
        let directory = CLI.temporaryDirectory()
        let outURL = directory.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let lifeline = Pipe()
        process.standardOutput = out
        let logURL = directory.appendingPathComponent("stderr")
        var log: FileHandle?
        if logsRequests {
            _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
            log = try FileHandle(forWritingTo: logURL)
        }
        process.standardError = log ?? FileHandle.nullDevice
        process.standardInput = lifeline
        try process.run()
        try? out.close()
        try? log?.close()
        let deadline = ContinuousClock.now + .seconds(20)
        var line = ""
        while ContinuousClock.now < deadline, process.isRunning {
            line = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
            if line.contains("\n") { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        guard let range = line.range(of: "listening on "),
              let port = Int(line[range.upperBound...].split(separator: "\n").first?.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            process.terminate()
            throw CLIError.simulatorDidNotStart(line)
        }
        let host = endpoint.hasPrefix("[") ? String(endpoint.dropFirst().prefix { $0 != "]" }) : String(endpoint.prefix { $0 != ":" })
        return SimulatorProcess(process: process, host: host, port: port, lifeline: lifeline, requestLogURL: logsRequests ? logURL : nil)
    }

    /// Stops the simulator (it exits on SIGTERM, and on the closed lifeline).
    func stop() {
        if process.isRunning { process.terminate() }
        try? lifeline.fileHandleForWriting.close()
    }

    deinit { stop() }

    /// Runs `mcumgr` against this simulator (`--udp ADDRESS` before the other arguments).
    func mcumgr(_ arguments: [String], timeout: Double = 60) async throws -> CLI.Result {
        try await CLI.mcumgr(["--udp", address] + arguments, timeout: timeout)
    }
}

/// Runs `body` with a fresh simulator, and stops it after.
func withSimulator<T>(
    _ arguments: [String] = [], endpoint: String = "127.0.0.1:0", logsRequests: Bool = false,
    _ body: (SimulatorProcess) async throws -> T
) async throws -> T {
    let simulator = try await SimulatorProcess.start(arguments, endpoint: endpoint, logsRequests: logsRequests)
    defer { simulator.stop() }
    return try await body(simulator)
}

/// MCUboot images for the tests, made with MCUboot's imgtool when the project venv has it
/// (`.venv/bin/imgtool`), else with `McuBootImageBuilder`, which writes the same bytes.
enum TestImages {
    /// Where imgtool is, if anywhere.
    static let imgtool: String? = {
        let path = CLI.packageRoot.appendingPathComponent(".venv/bin/imgtool").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    /// A pseudo-random payload of `size` bytes from `seed`.
    static func payload(size: Int, seed: UInt64) -> [UInt8] {
        var state = seed &+ 0x9e37_79b9_7f4a_7c15
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        while bytes.count < size {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var word = state ^ (state >> 29)
            for _ in 0..<8 where bytes.count < size {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return bytes
    }

    /// Writes an unsigned image of `version` with a `payloadSize`-byte payload to a new file and returns its path.
    static func make(version: String, payloadSize: Int, seed: UInt64) async throws -> String {
        let directory = CLI.temporaryDirectory()
        let output = directory.appendingPathComponent("app-\(version).bin").path
        let payload = payload(size: payloadSize, seed: seed)
        if let imgtool {
            let input = directory.appendingPathComponent("payload.bin").path
            try Data(payload).write(to: URL(fileURLWithPath: input))
            let result = try await CLI.run(imgtool, [
                "create", "--version", version, "--header-size", "0x200", "--pad-header", "--align", "4",
                "--slot-size", "0x80000", input, output,
            ])
            #expect(result.status == 0, "imgtool failed: \(result)")
        } else {
            var builder = McuBootImageBuilder(payload: payload, version: McuBootVersion(string: version)!)
            builder.headerSize = 0x200
            try Data(try builder.build()).write(to: URL(fileURLWithPath: output))
        }
        return output
    }

    /// The image's hash (SHA-256 TLV) in hex, as `image list` shows it.
    static func hash(of path: String) throws -> String {
        let image = try McuBootImage(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        return image.hash.map { String(format: "%02x", $0) }.joined()
    }
}
