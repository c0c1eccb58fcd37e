import SMPTestTraits
import McuBoot
import McuMgr
import SMP
import SMPSimulator
import Testing

@Suite("Firmware upgrade modes against the simulator", .virtualTime)
struct FirmwareUpgradeModeTests {
    private func slot(_ device: SimulatedDevice, image: Int = 0, slot: Int) async -> SlotState? {
        await device.slotStates().first { $0.image == image && $0.slot == slot }
    }

    @Test("test-and-confirm: the new image runs, confirmed, byte-identical in slot 0")
    func testAndConfirm() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let image = try UpgradeFixtures.image()
        let report = try await FirmwareUpgradeManager(client: client).upgrade(
            images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration()
        )
        let primary = try #require(await slot(device, slot: 0))
        #expect(primary.hash == image.hash)
        #expect(primary.active && primary.confirmed)
        #expect(Array(await device.slotContents(image: 0, slot: 0).prefix(image.bytes.count)) == image.bytes)
        #expect(report.uploadedImages == [0])
        #expect(report.resets == 1)
        // The old image waits in slot 1 with no flags: nothing will revert.
        let secondary = try #require(await slot(device, slot: 1))
        #expect(!secondary.pending && !secondary.confirmed && !secondary.active)
        #expect(await device.bootCount == 2)
    }

    @Test("test-only: the new image runs but is not confirmed")
    func testOnly() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let image = try UpgradeFixtures.image()
        _ = try await FirmwareUpgradeManager(client: client).upgrade(
            images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration(mode: .testOnly)
        )
        let primary = try #require(await slot(device, slot: 0))
        #expect(primary.hash == image.hash)
        #expect(primary.active)
        #expect(!primary.confirmed)
    }

    @Test("confirm-only: the new image runs confirmed after one reset, without a test boot")
    func confirmOnly() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let image = try UpgradeFixtures.image()
        let upgrade = try FirmwareUpgradeManager(client: client).start(
            images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration(mode: .confirmOnly)
        )
        var states: [FirmwareUpgradeState] = []
        for await event in upgrade.events {
            if case .stateChanged(let state) = event { states.append(state) }
        }
        let report = try await upgrade.result()
        let primary = try #require(await slot(device, slot: 0))
        #expect(primary.hash == image.hash)
        #expect(primary.active && primary.confirmed)
        #expect(report.resets == 1)
        #expect(!states.contains(.test))
        #expect(states.contains(.confirm) && states.last == .success)
    }

    @Test("upload-only: the image waits in slot 1 with no flags, and the device was not reset")
    func uploadOnly() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let image = try UpgradeFixtures.image()
        let report = try await FirmwareUpgradeManager(client: client).upgrade(
            images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration(mode: .uploadOnly)
        )
        let secondary = try #require(await slot(device, slot: 1))
        #expect(secondary.hash == image.hash)
        #expect(!secondary.pending && !secondary.active && !secondary.confirmed)
        #expect(Array(await device.slotContents(image: 0, slot: 1).prefix(image.bytes.count)) == image.bytes)
        #expect(report.resets == 0)
        #expect(await device.bootCount == 1)
    }

    @Test("two images in one upgrade: both run confirmed")
    func multiImage() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let app = try UpgradeFixtures.image(size: 40 * 1024, seed: 11)
        let net = try UpgradeFixtures.image(size: 24 * 1024, seed: 12)
        let report = try await FirmwareUpgradeManager(client: client).upgrade(
            images: [FirmwareUpgradeImage(index: 0, image: app), FirmwareUpgradeImage(index: 1, image: net)],
            configuration: UpgradeFixtures.configuration()
        )
        #expect(report.uploadedImages == [0, 1])
        for (index, image) in [(0, app), (1, net)] {
            let primary = try #require(await slot(device, image: index, slot: 0))
            #expect(primary.hash == image.hash)
            #expect(primary.active && primary.confirmed)
        }
    }
}

