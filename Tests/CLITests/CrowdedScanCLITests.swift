import Foundation
import SMPTestSupport
import Testing

@Suite("mcumgr --hci --ble-scan in a crowd of advertisers (issue 33, defect 2)")
struct CrowdedScanCLITests {
    @Test("5000 non-SMP advertisers before it (and 1000 advertisements from one address, each listing a new UUID): --ble-scan lists the SMP device")
    func crowdedScan() async throws {
        let controller = try await HostileController.start(["--crowd", "5000", "--uuid-spam", "1000", "--name", "smp-crowded"])
        defer { controller.stop() }
        // The scan lasts long enough for a debug build on a busy machine (or under a sanitizer) to
        // read the 6000 reports before the device: what is asserted is that it is then listed.
        let seconds = Int(10 * TestTimeScale.factor)
        let (result, peak) = try await controller.mcumgr(["--ble-scan", "--scan-seconds", String(seconds), "--json"], killAfter: Double(seconds) + 60)
        Expect.success(result)
        let data = try #require(result.stdout.data(using: .utf8))
        let entries = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]], "not a JSON list: \(result.stdout)")
        #expect(entries.map { $0["address"] as? String } == ["C0:02:5A:5A:5A:5A"])
        #expect(entries.first?["name"] as? String == "smp-crowded")
        // Under a sanitizer (SMP_TEST_TIME_SCALE > 1) the shadow memory is most of the RSS.
        if TestTimeScale.factor == 1 { #expect((peak ?? 0) < 100 * 1024, "peak RSS \(peak ?? -1) KiB") }
    }
}
