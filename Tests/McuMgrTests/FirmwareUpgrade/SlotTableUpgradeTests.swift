import McuBoot
import McuMgr
import SMP
import SMPSimulator
import SMPTestSupport
import Testing

/// Upgrades against a simulated device whose other slot is taken, or whose bootloader is not a
/// swap mode; each ends with the new image running as the mode requires, byte-identical.
/// Each runs on its own virtual time: device, session and upgrade share one `VirtualRuntime` clock.
@Suite("Firmware upgrade: the whole slot table and the bootloader mode")
struct SlotTableUpgradeTests {
    /// A device in `mode` running version 1.0.0 in slot 0 (confirmed, as a factory image is),
    /// over an in-memory loopback, on `clock`.
    static func device(
        _ mode: MCUbootMode = .swapUsingMove, faults: FaultConfiguration = FaultConfiguration(), clock: SMPClock,
        change: (inout DeviceConfiguration) -> Void = { _ in }
    ) async throws -> (SimulatedDevice, SMPClient) {
        var configuration = DeviceConfiguration()
        configuration.imageCount = 1
        configuration.bootloaderMode = mode
        configuration.resetDelay = .milliseconds(10)
        configuration.bootDuration = .milliseconds(30)
        change(&configuration)
        let device = SimulatedDevice(configuration: configuration, faults: faults, clock: clock)
        await device.install(try UpgradeFixtures.runningImage().bytes, image: 0, slot: 0, mark: .confirmed)
        let client = SMPClient(
            transport: await device.makeLoopbackTransport(),
            configuration: SMPClient.Configuration(timeout: .milliseconds(500), retries: 2), clock: clock)
        return (device, client)
    }

    /// Someone else's image, version 1.5.0.
    static func foreignImage() throws -> McuBootImage {
        try UpgradeFixtures.image(size: 20 * 1024, version: "1.5.0", seed: 99)
    }

    static func upgrade(
        _ client: SMPClient, _ image: McuBootImage, mode: FirmwareUpgradeMode = .testAndConfirm
    ) async throws(FirmwareUpgradeError) -> FirmwareUpgradeReport {
        try await FirmwareUpgradeManager(client: client).upgrade(
            images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration(mode: mode))
    }

    /// Checks that `image` runs from `slot`, byte-identical, confirmed or not.
    static func expectRunning(
        _ image: McuBootImage, on device: SimulatedDevice, slot: Int, confirmed: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let state = await device.slotStates().first { $0.image == 0 && $0.slot == slot }
        #expect(state?.hash == image.hash, sourceLocation: sourceLocation)
        #expect(state?.active == true, sourceLocation: sourceLocation)
        #expect(state?.confirmed == confirmed, sourceLocation: sourceLocation)
        #expect(await device.activeSlot(image: 0) == slot, sourceLocation: sourceLocation)
        let bytes = await device.slotContents(image: 0, slot: slot)
        #expect(Array(bytes.prefix(image.bytes.count)) == image.bytes, sourceLocation: sourceLocation)
    }

    /// Requests of image command `command` the device saw (`write` only, or all).
    static func requests(_ device: SimulatedDevice, command: UInt8, writes: Bool = true) async -> [RequestRecord] {
        await device.requestLog.filter { $0.group == 1 && $0.command == command && (!writes || $0.operation == 2) }
    }

    @Test("a foreign image pending in slot 1 is erased before the upload")
    func foreignPendingErased() async throws {
        try await VirtualRuntime().run { clock async throws in
            let (device, client) = try await Self.device(clock: clock) { $0.allowsErasingPendingSlots = true }
            await device.install(try Self.foreignImage().bytes, image: 0, slot: 1, mark: .test)
            let image = try UpgradeFixtures.image()
            let report = try await Self.upgrade(client, image)
            await Self.expectRunning(image, on: device, slot: 0)
            #expect(report.resets == 1)
            #expect(await Self.requests(device, command: 5).map(\.outcome) == [.success])
        }
    }

    @Test("a foreign image pending in slot 1 that the device will not erase: reset first, then upload", arguments: [SlotMark.test, .permanent])
    func foreignPendingEraseRefused(mark: SlotMark) async throws {
        try await VirtualRuntime().run { clock async throws in
            let (device, client) = try await Self.device(clock: clock)
            let foreign = try Self.foreignImage()
            await device.install(foreign.bytes, image: 0, slot: 1, mark: mark)
            let image = try UpgradeFixtures.image()
            let report = try await Self.upgrade(client, image)
            await Self.expectRunning(image, on: device, slot: 0)
            #expect(await Self.requests(device, command: 5).map(\.outcome) == [.groupError(group: 1, rc: 9)])
            // Test: one reset boots the foreign image for test, one reverts it, one boots ours.
            // Permanent: one reset makes the foreign image permanent, one boots ours.
            #expect(report.resets == (mark == .test ? 3 : 2))
            #expect(report.uploadedImages == [0])
        }
    }

    @Test("a confirmed image in slot 1 (the running image on test): reset to revert, then upgrade")
    func confirmedSecondary() async throws {
        try await VirtualRuntime().run { clock async throws in
            let (device, client) = try await Self.device(clock: clock)
            let foreign = try Self.foreignImage()
            await device.install(foreign.bytes, image: 0, slot: 1, mark: .confirmed)
            let image = try UpgradeFixtures.image()
            let report = try await Self.upgrade(client, image)
            await Self.expectRunning(image, on: device, slot: 0)
            // The revert brought the confirmed image back, and it is the new image's fallback now.
            let fallback = await device.slotStates().first { $0.slot == 1 }
            #expect(fallback?.hash == foreign.hash && fallback?.pending == false)
            #expect(report.resets == 2)
            #expect(await Self.requests(device, command: 5).isEmpty)
        }
    }

    @Test("direct-XIP without revert: upload to the inactive slot, reset, no test or confirm")
    func directXIP() async throws {
        try await VirtualRuntime().run { clock async throws in
            let (device, client) = try await Self.device(.directXIP, clock: clock)
            let image = try UpgradeFixtures.image(version: "2.0.0")
            let report = try await Self.upgrade(client, image)
            await Self.expectRunning(image, on: device, slot: 1)
            #expect(report.resets == 1)
            #expect(await Self.requests(device, command: 0).isEmpty)
            // The next upgrade lands in slot 0, now the inactive one.
            let next = try UpgradeFixtures.image(size: 48 * 1024, version: "3.0.0", seed: 8)
            _ = try await Self.upgrade(client, next)
            await Self.expectRunning(next, on: device, slot: 0)
            #expect(await Self.requests(device, command: 0).isEmpty)
        }
    }

    @Test("direct-XIP with revert: upload to the inactive slot, test, reset, confirm; it stays after another reset")
    func directXIPWithRevert() async throws {
        try await VirtualRuntime().run { clock async throws in
            let (device, client) = try await Self.device(.directXIPWithRevert, clock: clock)
            let image = try UpgradeFixtures.image(version: "2.0.0")
            let report = try await Self.upgrade(client, image)
            await Self.expectRunning(image, on: device, slot: 1)
            #expect(report.resets == 1)
            #expect(await Self.requests(device, command: 0).count == 2)
            try await DefaultManager(client: client).reset()
            while await device.bootCount < 3 { try await clock.sleep(for: .milliseconds(5)) }
            await device.waitUntilOnline()
            await Self.expectRunning(image, on: device, slot: 1)
        }
    }

    @Test("direct-XIP: an image that is not newer than the running one is refused before any upload")
    func directXIPNotNewer() async throws {
        try await VirtualRuntime().run { clock async throws in
            let (device, client) = try await Self.device(.directXIP, clock: clock)
            let image = try UpgradeFixtures.image(version: "0.9.0")
            await #expect {
                try await Self.upgrade(client, image)
            } throws: { error in
                guard let error = error as? FirmwareUpgradeError, case .notNewerThanRunning = error.reason else { return false }
                return error.description.contains("would never run")
            }
            #expect(await Self.requests(device, command: 1).isEmpty)
        }
    }

    @Test("busy answers to image list, upload, test and confirm are waited out", arguments: [Set<UInt8>([0]), [1], [0, 1, 5]])
    func busy(commands: Set<UInt8>) async throws {
        try await VirtualRuntime().run { clock async throws in
            var faults = FaultConfiguration()
            faults.busyImageRequests = 3
            faults.busyImageCommands = commands
            let (device, client) = try await Self.device(faults: faults, clock: clock)
            let image = try UpgradeFixtures.image()
            _ = try await Self.upgrade(client, image)
            await Self.expectRunning(image, on: device, slot: 0)
            let busy = await device.requestLog.filter { $0.outcome == .status(10) }
            #expect(busy.count == 3)
            #expect(busy.allSatisfy { commands.contains($0.command) })
        }
    }

    @Test("busy answers to the erase of a foreign pending image are waited out")
    func busyErase() async throws {
        try await VirtualRuntime().run { clock async throws in
            var faults = FaultConfiguration()
            faults.busyImageRequests = 2
            faults.busyImageCommands = [5]
            let (device, client) = try await Self.device(faults: faults, clock: clock) { $0.allowsErasingPendingSlots = true }
            await device.install(try Self.foreignImage().bytes, image: 0, slot: 1, mark: .test)
            let image = try UpgradeFixtures.image()
            let report = try await Self.upgrade(client, image)
            await Self.expectRunning(image, on: device, slot: 0)
            #expect(await Self.requests(device, command: 5).map(\.outcome) == [.status(10), .status(10), .success])
            #expect(report.resets == 1)
        }
    }

    @Test("RAM load and firmware loader: a clear refusal of test-and-confirm, nothing uploaded", arguments: [MCUbootMode.ramLoad, .firmwareLoader])
    func unsupportedModes(mode: MCUbootMode) async throws {
        try await VirtualRuntime().run { clock async throws in
            let (device, client) = try await Self.device(mode, clock: clock)
            let image = try UpgradeFixtures.image()
            await #expect {
                try await Self.upgrade(client, image)
            } throws: { error in
                guard let error = error as? FirmwareUpgradeError,
                    case .unsupportedBootloaderMode(let reported, .testAndConfirm) = error.reason
                else { return false }
                return reported.rawValue == mode.rawValue && error.description.contains("Supported: upload-only")
            }
            #expect(await Self.requests(device, command: 1).isEmpty)
            #expect(await device.bootCount == 1)
        }
    }

    @Test("RAM load: upload-only stores the image in the inactive slot")
    func ramLoadUploadOnly() async throws {
        try await VirtualRuntime().run { clock async throws in
            let (device, client) = try await Self.device(.ramLoad, clock: clock)
            let image = try UpgradeFixtures.image()
            let report = try await Self.upgrade(client, image, mode: .uploadOnly)
            #expect(report.resets == 0)
            let stored = await device.slotStates().first { $0.slot == 1 }
            #expect(stored?.hash == image.hash && stored?.pending == true)
            #expect(Array(await device.slotContents(image: 0, slot: 1).prefix(image.bytes.count)) == image.bytes)
        }
    }
}
