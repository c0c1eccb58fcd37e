import McuBoot
import McuMgr
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// DFU packages through the upgrade engine against the simulator: an nRF5340's two images in one
/// upgrade, resumed after an interruption, and a direct-XIP package's image for the free slot.
@Suite("DFU package upgrades", .virtualTime)
struct PackageUpgradeTests {
    static func package(_ images: [(index: Int, image: McuBootImage, slot: Int?)]) throws -> FirmwarePackage {
        let files: [DFUPackageWriter.File] = images.enumerated().map { offset, item in
            DFUPackageWriter.File(name: "image\(offset).bin", bytes: item.image.bytes, image: item.index, directXIPSlot: item.slot)
        }
        let manifest = DFUPackageWriter.manifest(files, layout: .sysbuild)
        return try FirmwarePackage(archive: InMemoryPackageArchive(files: [("manifest.json", Array(manifest.utf8))] + files.map { ($0.name, $0.bytes) }))
    }

    @Test("an nRF5340 package: both images uploaded, tested, one reset, both confirmed")
    func twoImages() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let app = try UpgradeFixtures.image(size: 40 * 1024, seed: 21), net = try UpgradeFixtures.image(size: 24 * 1024, seed: 22)
        let package = try Self.package([(0, app, nil), (1, net, nil)])
        let report = try await FirmwareUpgradeManager(client: client).upgrade(package: package, configuration: UpgradeFixtures.configuration())
        #expect(report.uploadedImages == [0, 1] && report.resets == 1)
        for (index, image) in [(0, app), (1, net)] {
            let running = try #require(await device.slotStates().first { $0.image == index && $0.slot == 0 })
            #expect(running.hash == image.hash && running.active && running.confirmed)
        }
        #expect(await device.bootCount == 2)
    }

    @Test("interrupted in image 1, the upgrade is run again and does not send image 0 again")
    func resumes() async throws {
        var faults = FaultConfiguration()
        let app = try UpgradeFixtures.image(size: 20 * 1024, seed: 31), net = try UpgradeFixtures.image(size: 60 * 1024, seed: 32)
        faults.disconnectAtUploadOffset = 30 * 1024
        faults.reconnectDelay = .seconds(30)
        let (device, client) = try await UpgradeFixtures.device(faults: faults)
        let package = try Self.package([(0, app, nil), (1, net, nil)])
        var configuration = UpgradeFixtures.configuration()
        configuration.stepTimeout = .seconds(5)
        await #expect(throws: FirmwareUpgradeError.self) {
            _ = try await FirmwareUpgradeManager(client: client).upgrade(package: package, configuration: configuration)
        }
        let partial = try #require(await device.partialUpload)
        #expect(partial.image == 1 && partial.offset >= 30 * 1024 && partial.offset < 60 * 1024)
        let before = await UpgradeFixtures.uploadRequests(device).count
        try await VirtualRuntime.currentClock.sleep(for: .seconds(30))
        try await client.reconnect()
        let report = try await FirmwareUpgradeManager(client: client).upgrade(package: package, configuration: UpgradeFixtures.configuration())
        #expect(report.uploadedImages == [1])
        let again = await UpgradeFixtures.uploadRequests(device).dropFirst(before)
        let sentAgain = again.map(\.length).reduce(0, +)
        // Image 1 resumed at its partial upload (30 KiB or more of 60): far less than both images again.
        #expect(sentAgain < 45 * 1024, "\(sentAgain) bytes of upload requests in the second run")
        for (index, image) in [(0, app), (1, net)] {
            let running = try #require(await device.slotStates().first { $0.image == index && $0.active })
            #expect(running.hash == image.hash && running.confirmed)
        }
    }

    @Test("a direct-XIP package sends the image built for the slot the device is not running from")
    func directXIP() async throws {
        var configuration = DeviceConfiguration()
        configuration.bootloaderMode = .directXIPWithRevert
        configuration.imageCount = 1
        let (device, client) = try await UpgradeFixtures.device(configuration: configuration)
        let forSlot0 = try UpgradeFixtures.image(size: 30 * 1024, version: "2.0.0", seed: 41)
        let forSlot1 = try UpgradeFixtures.image(size: 30 * 1024, version: "2.0.0", seed: 42)
        let package = try Self.package([(0, forSlot0, 0), (0, forSlot1, 1)])
        let report = try await FirmwareUpgradeManager(client: client).upgrade(package: package, configuration: UpgradeFixtures.configuration())
        #expect(report.uploadedImages == [0])
        let running = try #require(await device.slotStates().first { $0.image == 0 && $0.active })
        #expect(running.slot == 1 && running.hash == forSlot1.hash && running.confirmed)
        // Run again: the image the device runs is found, nothing is sent.
        let again = try await FirmwareUpgradeManager(client: client).upgrade(package: package, configuration: UpgradeFixtures.configuration())
        #expect(again.uploadedImages.isEmpty && again.resets == 0)
    }
}
