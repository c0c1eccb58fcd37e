import Foundation
import SMP
import SMPTestSupport
import Testing

/// The children the tests start (simulators, Python peers, `mcumgr`) can be stopped with SIGTERM.
@Suite("child processes of the tests")
struct ChildProcessTests {
    @Test("a child starts with no signal blocked, although the test's own thread blocks SIGTERM")
    func noSignalBlocked() async throws {
        // The kernel's view of the child's mask (`SigBlk`, hex), read by the child itself.
        let result = try await Subprocess.run("/bin/grep", ["^SigBlk:", "/proc/self/status"], timeout: .seconds(60))
        #expect(result.status == 0, "\(result)")
        let mask = result.stdout.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(mask.flatMap { UInt64($0, radix: 16) } == 0, "\(result)")
    }

    @Test("a Python device whose SIGTERM takes its default action ends on terminate()")
    func pythonEndsOnTerminate() async throws {
        let device = try await HostileDevice.start(answering: "garbage")
        // Its lifeline stays open: only the signal can end it (a bound keeps a failure from hanging the run).
        device.child.terminate()
        let watchdog = SMPClock.continuous.task {
            try? await SMPClock.continuous.sleep(for: TestTimeScale.scaled(.seconds(60)))
            device.child.kill()
        }
        let status = await device.child.exitStatus()
        watchdog.cancel()
        #expect(status == SIGTERM, "exit status \(status): SIGTERM did not end the child")
    }
}
