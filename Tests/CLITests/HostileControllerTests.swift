import Foundation
import SMPTestSupport
import Testing

@Suite("mcumgr --hci against a controller flooding LE Connection Complete (issue 33, defect 1)")
struct HostileControllerCLITests {
    @Test("an LE Connection Complete flood at 5000 events/s, Disconnect never answered: --ble-scan ends after its 3 s with peak RSS under 100 MB")
    func connectionFlood() async throws {
        let controller = try await HostileController.start(["--flood-connections", "5000", "--disconnect", "none"])
        defer { controller.stop() }
        let (result, peak) = try await controller.mcumgr(["--ble-scan", "--scan-seconds", "3", "--json"], killAfter: 60 * TestTimeScale.factor)
        Expect.success(result)
        let entries = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [Any]
        #expect(entries?.isEmpty == true, "\(result.stdout)")
        #expect(!result.stderr.contains("killed after"), "mcumgr ran past its 60 s bound: \(result.stderr.suffix(500))")
        let peakKiB = try #require(peak, "no peak-rss line: \(result.stderr.suffix(500))")
        // Under a sanitizer (SMP_TEST_TIME_SCALE > 1) the shadow memory is most of the RSS: bounded, not by 100 MB.
        #expect(peakKiB < (TestTimeScale.factor == 1 ? 100 : 1000) * 1024, "peak RSS \(peakKiB) KiB")
        // The flood reached the host (the controller's own count; a slow host slows it through TCP).
        let sent = try await controller.connectionEventsSent()
        #expect((sent ?? 0) >= 4000, "the controller sent \(sent.map(String.init) ?? "no") LE Connection Complete events")
    }
}
