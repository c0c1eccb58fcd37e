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
}
