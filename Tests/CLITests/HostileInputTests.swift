import Foundation
import SMP
import SMPTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

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
}
