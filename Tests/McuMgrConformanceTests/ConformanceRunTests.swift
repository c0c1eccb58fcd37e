import McuMgrConformance
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// A whole conformance run against the reference device: every check passes, and the device is
/// left as the run found it.
@Suite("Conformance against the default simulator", .virtualTime)
struct ConformanceRunTests {
    @Test("with writes and resets every check passes, and images, settings and files are as before")
    func everyCheckPasses() async throws {
        let fixture = await ConformanceFixture.make()
        let before = await fixture.snapshot()
        let report = await fixture.run()
        let notPassed = report.results.filter { $0.status != .pass }.map { "\($0.id): \($0.status.rawValue): \($0.observed)" }
        // One link unit carries any packet of the in-memory link: nothing to reassemble there
        // (the CLI test runs transport.reassembly over a serial line).
        #expect(notPassed == ["transport.reassembly: skipped: a packet is one unit of this link (65535 bytes): nothing to reassemble"])
        #expect(report.stopped == nil)
        #expect(report.passed)
        #expect(report.results.count == ConformanceCheck.all.count)
        #expect(report.bufferSize == 2048 && report.bufferCount == 4)
        let after = await fixture.snapshot()
        #expect(after == before)
        // The swap checks reset twice (and os.reset once), and the device runs version 1.0.0 again.
        #expect(await fixture.device.bootCount == 4)
        #expect(await fixture.device.partialUpload == nil)
    }

    @Test("without options only the reads run; the others say what they need")
    func readOnlyByDefault() async throws {
        let fixture = await ConformanceFixture.make()
        let before = await fixture.snapshot()
        var options = ConformanceOptions()
        options.timeout = .seconds(1)
        let report = await fixture.run(options)
        #expect(report.ids(.fail).isEmpty)
        #expect(report.result("image.upload-gap")?.observed == "needs --allow-writes")
        #expect(report.result("os.reset")?.observed == "needs --allow-reset")
        #expect(report.result("image.swap-after-reset")?.observed == "needs --allow-writes and --allow-reset")
        #expect(report.result("fs.hash-types")?.status == .skipped)
        #expect(report.result("os.datetime")?.observed.contains("needs --allow-writes") == true)
        #expect(await fixture.device.bootCount == 1)
        #expect(await fixture.snapshot() == before)
        // No upload, erase or state write that changes anything reached the device.
        let writes = await fixture.device.requestLog.filter { $0.group == 1 && [1, 5].contains($0.command) }
        #expect(writes.isEmpty)
    }

    @Test("the swap checks need an image the device boots; the rest of the writes run without one")
    func swapNeedsAnImage() async throws {
        let fixture = await ConformanceFixture.make()
        let before = await fixture.snapshot()
        var options = ConformanceFixture.allOptions
        options.bootableImage = nil
        let report = await fixture.run(options)
        #expect(report.ids(.fail).isEmpty)
        #expect(report.result("image.test-pending")?.observed.hasPrefix("needs --image FILE") == true)
        #expect(report.result("image.upload-complete")?.status == .pass)
        #expect(report.result("image.erase")?.status == .pass)
        #expect(report.result("image.restored")?.status == .pass)
        #expect(await fixture.snapshot() == before)
    }

    @Test("only the checks named run, and a slot already holding an image is left alone")
    func onlyAndForeignImage() async throws {
        let fixture = await ConformanceFixture.make()
        let foreign = MCUbootImageMaker.make(version: ImageVersion(3, 0, 0), payloadSize: 1000, seed: 3)
        await fixture.device.install(foreign, image: 0, slot: 1)
        let before = await fixture.snapshot()
        var options = ConformanceFixture.allOptions
        options.only = ["image", "transport.lossy-writes"]
        let report = await fixture.run(options)
        #expect(report.results.allSatisfy { $0.id.hasPrefix("image.") || $0.id == "transport.lossy-writes" })
        #expect(report.result("image.upload-gap")?.observed.contains("holds an image") == true)
        #expect(report.result("transport.lossy-writes")?.status == .skipped)
        #expect(report.ids(.fail).isEmpty)
        #expect(await fixture.snapshot() == before)
    }
}
