import Foundation
import SMPTestSupport
import Testing

@Suite("mcumgr --hci --ble-scan in a crowd of advertisers (issue 33, defect 2)")
struct CrowdedScanCLITests {
    @Test("5000 non-SMP advertisers (and one address listing a new UUID in each of 10 000 advertisements) before it: --ble-scan lists the SMP device")
    func crowdedScan() async throws {
        let controller = try await HostileController.start(["--crowd", "5000", "--uuid-spam", "10000", "--name", "smp-crowded"])
        defer { controller.stop() }
        // 5 s: the 15 000 reports before the device take a debug build a second or two.
        let (result, peak) = try await controller.mcumgr(["--ble-scan", "--scan-seconds", "5", "--json"])
        Expect.success(result)
        let data = try #require(result.stdout.data(using: .utf8))
        let entries = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]], "not a JSON list: \(result.stdout)")
        #expect(entries.map { $0["address"] as? String } == ["C0:02:5A:5A:5A:5A"])
        #expect(entries.first?["name"] as? String == "smp-crowded")
        #expect((peak ?? 0) < 100 * 1024, "peak RSS \(peak ?? -1) KiB")
    }
}
