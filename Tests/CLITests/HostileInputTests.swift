import Foundation
import SMP
import SMPTestSupport
import Testing

import Glibc

/// Issue 33 ("Hostile round 3"), the items that are not about Bluetooth: out-of-range durations
/// (defect 3), devices files from Windows (4), one exit status per cause (5), interrupted
/// downloads (6) and the smaller things found on the way. Defect 7 (`{}` for mpstat and
/// bootloader) is in `ReliabilityTests.emptyAnswers`, beside the other empty answers.
@Suite("mcumgr and mcumgr-sim against careless input (hostile round 3)")
struct HostileInputTests {
    // MARK: Defect 3: out-of-range durations

    @Test("a duration past its range is a usage error (2) naming the range, not a crash (SIGILL)", arguments: [
        ["upgrade", "IMAGE", "--reset-timeout", "1e300"],
        ["upgrade", "IMAGE", "--reset-timeout", "inf"],
        ["upgrade", "IMAGE", "--swap-time", "1e300"],
        ["fleet", "upgrade", "IMAGE", "--devices", "DEVICES", "--reset-timeout", "1e300"],
        ["fleet", "upgrade", "IMAGE", "--devices", "DEVICES", "--step-timeout", "inf"],
    ])
    func mcumgrDurations(arguments: [String]) async throws {
        let image = try await TestImages.make(version: "2.0.0", payloadSize: 4096, seed: 33)
        let devices = CLI.temporaryDirectory().appendingPathComponent("devices.txt").path
        try Data("sim one\n".utf8).write(to: URL(fileURLWithPath: devices))
        let result = try await CLI.mcumgr(arguments.map { $0 == "IMAGE" ? image : $0 == "DEVICES" ? devices : $0 })
        let option = arguments[arguments.count - 2]
        Expect.failure(result, status: 2, mentioning: "'\(option) <")
        #expect(result.stderr.contains("to 86400 seconds") || result.stderr.contains("at most 86400 seconds"), "\(result)")
    }

    @Test("mcumgr-sim refuses a duration past its range with its usage status (64), not a crash (SIGILL)", arguments: [
        "--latency", "--boot-time", "--reset-delay", "--delay-ms", "--reconnect-delay",
    ])
    func simulatorDurations(option: String) async throws {
        let result = try await CLI.run(try BuiltProducts.require("mcumgr-sim"), [option, "1e300", "--udp", "127.0.0.1:0"], timeout: 30)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("'\(option) <"), "\(result)")
        #expect(result.stderr.contains("0 to 3600000 milliseconds"), "\(result)")
    }

    // MARK: Defect 4: devices files written on Windows

    @Test("a devices file with CRLF (and a byte order mark) or CR line ends is read line by line", arguments: [
        ("\r\n", true), ("\r\n", false), ("\r", false),
    ])
    func windowsDevicesFile(ending: String, byteOrderMark: Bool) async throws {
        let devices = CLI.temporaryDirectory().appendingPathComponent("devices.txt").path
        let text = ["# bench", "sim left", "", "type=sim right"].joined(separator: ending) + ending
        try Data((byteOrderMark ? [0xef, 0xbb, 0xbf] : []) + Array(text.utf8)).write(to: URL(fileURLWithPath: devices))
        let list = try await CLI.mcumgr(["fleet", "list", "--devices", devices, "--json"])
        Expect.success(list)
        let listed = try #require(try list.json()["devices"] as? [[String: Any]])
        #expect(listed.map { $0["name"] as? String } == ["left", "right"], "\(list)")
    }

    // MARK: Defect 5: one exit status per cause

    @Test("a bad serial setting is a usage error (2) however it is given: --serial, --hci serial:, a profile", arguments: [
        (["--serial", "/dev/null", "--baud", "0", "echo", "x"], "--baud 0"),
        (["--serial", "/dev/null", "--line-length", "5", "echo", "x"], "--line-length 5"),
        (["--serial", "/dev/null", "--baud", "12345", "echo", "x"], "--baud 12345"),
        (["--hci", "serial:/dev/null@0", "--ble-scan"], "hci baud rate"),
        (["--hci", "serial:/dev/null@12345", "--ble-scan"], "hci baud rate"),
        (["-c", "zero", "echo", "x"], "'0' is not a valid baud"),
        (["-c", "odd", "echo", "x"], "'12345' is not a valid baud"),
        (["-c", "short", "echo", "x"], "'5' is not a valid line_length"),
    ])
    func serialSettings(arguments: [String], message: String) async throws {
        let config = CLI.temporaryDirectory()
        try Data("""
            {"version": 1, "connections": {
              "zero": {"type": "serial", "connstring": "dev=/dev/null,baud=0"},
              "odd": {"type": "serial", "connstring": "dev=/dev/null,baud=12345"},
              "short": {"type": "serial", "connstring": "dev=/dev/null,line_length=5"}
            }}
            """.utf8).write(to: config.appendingPathComponent("connections.json"))
        let result = try await CLI.mcumgr(arguments, environment: ["MCUMGR_CONFIG_DIR": config.path])
        Expect.failure(result, status: 2, mentioning: message)
    }

    // MARK: Defect 6: interrupted downloads

    @Test("Ctrl-C or SIGTERM during fs download removes the partial file and exits 130", arguments: [SIGINT, SIGTERM])
    func interruptedDownload(signal: Int32) async throws {
        let folder = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.bin")
        try Data(TestImages.payload(size: 512 * 1024, seed: 6)).write(to: source)
        let downloads = folder.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        // 20 ms an answer: the download takes seconds, time enough to interrupt it in the middle.
        try await withSimulator(["--latency", "20"]) { sim in
            Expect.success(try await sim.mcumgr(["fs", "upload", source.path, "/lfs1/big.bin"]))
            let child = try Subprocess.launch(
                try BuiltProducts.require("mcumgr"),
                ["--udp", sim.address, "fs", "download", "/lfs1/big.bin", downloads.appendingPathComponent("big.bin").path],
                stdout: folder.appendingPathComponent("stdout"), stderr: folder.appendingPathComponent("stderr"),
                environment: ["MCUMGR_CONFIG_DIR": CLI.isolatedConfigDirectory])
            defer { child.kill() }
            let partial = try await child.awaitOutput(within: SimulatorProcess.startLimit) { _ in
                (try? FileManager.default.contentsOfDirectory(atPath: downloads.path))?.first { $0.hasSuffix(".partial") }
            }
            try #require(partial != nil, "no partial file appeared: \(child.stderr)")
            child.signal(signal)
            let status = try await Self.exitStatus(of: child)
            #expect(status == 130, "exit \(status): \(child.stderr)")
            #expect(child.stderr.contains("interrupted"), "\(child.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: downloads.path) == [], "the partial file was left behind")
        }
    }

    // MARK: Smaller things found on the way

    @Test("a named pipe with no writer as an image, a key or a devices file is refused at once (exit 4)", arguments: [
        ["image", "info", "FIFO"], ["image", "info", "IMAGE", "--key", "FIFO"], ["fleet", "list", "--devices", "FIFO"],
    ])
    func namedPipes(arguments: [String]) async throws {
        let folder = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let image = try await TestImages.make(version: "1.0.1", payloadSize: 1024, seed: 34)
        // Before the fix the command waited for a writer forever; the limit only bounds that wait.
        let result = try await CLI.mcumgr(arguments.map { $0 == "FIFO" ? fifo : $0 == "IMAGE" ? image : $0 }, timeout: 60)
        #expect(result.status == 4, "\(result)")
        #expect(result.stderr.contains("\(fifo) is a named pipe (FIFO), not a regular file"), "\(result)")
    }

    @Test("a device listed three times is refused (exit 2) naming the lines, not upgraded three times at once")
    func duplicateDevices() async throws {
        let devices = CLI.temporaryDirectory().appendingPathComponent("devices.txt").path
        try Data("udp:127.0.0.1:9 a\nudp:127.0.0.1:9 b\nudp:127.0.0.1:9 c\n".utf8).write(to: URL(fileURLWithPath: devices))
        let result = try await CLI.mcumgr(["fleet", "list", "--devices", devices, "--timeout", "0.2"])
        Expect.failure(result, status: 2, mentioning: "line 2 ('udp:127.0.0.1:9 b'): udp:127.0.0.1:9 is already on line 1; list each device once")
    }

    @Test("SIGTERM during fleet list starts no further device and prints what was read so far (exit 130)")
    func interruptedFleetList() async throws {
        // A device that receives and never answers: the first device's read is in flight when the signal comes.
        let silent = try SilentUDPSocket()
        let folder = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let devices = folder.appendingPathComponent("devices.txt").path
        try Data("udp:127.0.0.1:\(silent.port) silent\nsim later-1\nsim later-2\n".utf8).write(to: URL(fileURLWithPath: devices))
        let child = try Subprocess.launch(
            try BuiltProducts.require("mcumgr"),
            ["fleet", "list", "--devices", devices, "--concurrency", "1", "--timeout", "60", "--json"],
            stdout: folder.appendingPathComponent("stdout"), stderr: folder.appendingPathComponent("stderr"),
            environment: ["MCUMGR_CONFIG_DIR": CLI.isolatedConfigDirectory])
        defer { child.kill() }
        try #require(try await silent.awaitRequest(within: SimulatorProcess.startLimit), "no request reached the device: \(child.stderr)")
        child.signal(SIGTERM)
        let status = try await Self.exitStatus(of: child)
        #expect(status == 130, "exit \(status): \(child.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(child.stdout.utf8)) as? [String: Any], "\(child.stdout)")
        let listed = try #require(report["devices"] as? [[String: Any]], "\(child.stdout)")
        #expect(listed.map { $0["name"] as? String } == ["silent"], "\(report)")
        #expect(child.stderr.contains("interrupted: 1 of 3 devices read or tried"), "\(child.stderr)")
    }

    /// The exit status of `child`, killed after a minute (scaled) if it does not end.
    static func exitStatus(of child: ChildProcess) async throws -> Int32 {
        let watchdog = SMPClock.continuous.task {
            try? await SMPClock.continuous.sleep(for: TestTimeScale.scaled(.seconds(60)))
            child.kill()
        }
        defer { watchdog.cancel() }
        return await child.exitStatus()
    }
}

extension SilentUDPSocket {
    /// Whether a datagram arrived within `limit` (polled: a real process sends it).
    func awaitRequest(within limit: Duration) async throws -> Bool {
        let deadline = SMPClock.continuous.now + limit
        var byte: UInt8 = 0
        while SMPClock.continuous.now < deadline {
            if recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) >= 0 { return true }
            try await SMPClock.continuous.sleep(for: .milliseconds(10))
        }
        return false
    }
}
