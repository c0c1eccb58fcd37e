import McuMgr
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// Mynewt's crash (5) and run (7) groups against the simulator.
@Suite("Crash and run groups", .virtualTime)
struct CrashRunTests {
    @Test("a crash test is answered, then the device reboots with the crash as its reset reason", arguments: CrashTest.allCases)
    func crash(_ test: CrashTest) async throws {
        let (device, client) = try await UpgradeFixtures.device()
        #expect(try await CrashManager(client: client).crash(test) == .acknowledged)
        await device.waitForBoot(2)
        #expect(await device.lastResetReason == "crash (\(test.rawValue))")
        await device.waitUntilOnline()
        let texts = try await LogManager(client: client).showAll().flatMap(\.entries).compactMap(\.text)
        #expect(texts.contains { $0.contains("reset reason: crash (\(test.rawValue))") }, "\(texts)")
    }

    @Test("run list gives the suites; run test runs one or all; an unknown suite is ENOENT")
    func run() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let run = RunManager(client: client)
        #expect(try await run.list() == ["os_test", "cbor_test", "flash_test"])
        try await run.test("cbor_test", token: "t1")
        try await run.test()
        #expect(await device.logMessages.filter { $0.contains("passed") } == [
            "test suite cbor_test passed [t1]", "test suite os_test passed", "test suite cbor_test passed", "test suite flash_test passed",
        ])
        do {
            try await run.test("nope")
            Issue.record("an unknown suite ran")
        } catch {
            guard case .device(let deviceError) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(deviceError.status == .noEntry, "\(error)")
        }
    }
}
