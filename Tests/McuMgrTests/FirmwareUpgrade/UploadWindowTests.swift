import McuBoot
import McuMgr
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// A pipeline deeper than the device's buffers: the session settles at what the device holds
/// instead of losing throughput to repeated refusals (`MGMT_ERR_ENOMEM`).
@Suite("Upload engine: depth beyond the device's buffers", .virtualTime)
struct UploadWindowTests {
    @Test("depth 8 against 4 buffers: one burst of refusals narrows the window to 4 once; few refusals after; the slot is exact")
    func depthBeyondBuffers() async throws {
        var configuration = DeviceConfiguration()
        configuration.bufferCount = 4
        var link = LinkConfiguration(latency: .milliseconds(5))
        link.bufferOverflow = .answerNoMemory
        let (device, client) = try await UpgradeFixtures.device(configuration: configuration, link: link)
        let image = try UpgradeFixtures.image(size: 300 * 1024)
        _ = try await FirmwareUpgradeManager(client: client).upgrade(
            images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration(mode: .uploadOnly, depth: 8))
        let contents = await device.slotContents(image: 0, slot: 1)
        #expect(Array(contents.prefix(image.bytes.count)) == image.bytes)

        let uploads = await UpgradeFixtures.uploadRequests(device)
        let written = uploads.filter { $0.outcome == .success }.count
        let refused = uploads.filter { $0.outcome == .status(2) }.count
        // About 150 chunks: the first burst refuses 4 (8 sent, 4 held), then each probe of a
        // wider window costs one refusal, at 64, 128, … answers; a window that shrank one step
        // per refusal, or to 1, would cost far more.
        #expect(written > 100)
        #expect(refused <= 8, "\(refused) refusals for \(written) chunks written")
        #expect(await device.maximumRequestsInFlight == 4)
    }
}
