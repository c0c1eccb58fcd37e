import McuBoot
import McuMgr
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// A lost answer to `reset` never makes MCUboot revert the upgrade (reliability issue, defect 3).
///
/// A reset is not idempotent: the device that lost only its answer has already rebooted into
/// the test image, and a second reset would revert it. The runner sends the reset once and finds
/// out from the image table whether the device rebooted; it asks again only when the device
/// keeps answering, unchanged, well past any reset delay. Before the fix the session resent the
/// reset after its timeout like any request, and the second reset reverted the upgrade.
@Suite("Reliability: a lost reset answer never reverts the upgrade", .virtualTime, .scaledTimeLimit(minutes: 2))
struct LostResetTests {
    struct Outcome {
        let result: Result<FirmwareUpgradeReport, FirmwareUpgradeError>
        let resetsSeen: Int
        let erasesSeen: Int
        let boots: Int
        let primary: SlotState?
        let image: McuBootImage
    }

    /// One test-and-confirm upgrade over a link that loses the reset requests and answers picked.
    static func upgrade(
        requests: LossyLink.Filter = .none, responses: LossyLink.Filter = .none, bootDuration: Duration = .milliseconds(300),
        foreignPendingImage: Bool = false
    ) async throws -> Outcome {
        let clock = VirtualRuntime.currentClock
        var configuration = DeviceConfiguration()
        configuration.imageCount = 1
        configuration.bootDuration = bootDuration
        configuration.allowsErasingPendingSlots = true
        let device = SimulatedDevice(configuration: configuration, clock: clock, logger: ManagerHarness.quietLogger)
        await device.install(try UpgradeFixtures.runningImage().bytes, image: 0, slot: 0)
        if foreignPendingImage {
            await device.install(try UpgradeFixtures.image(size: 8 * 1024, version: "1.5.0", seed: 99).bytes, image: 0, slot: 1, mark: .test)
        }
        let transport = await LossyLink.transport(to: device, requests: requests, responses: responses)
        // The session resends what may be resent: twice, after 500 ms each.
        let client = SMPClient(transport: transport, configuration: .init(timeout: .milliseconds(500), retries: 2), clock: clock)
        let image = try UpgradeFixtures.image()
        var upgrade = UpgradeFixtures.configuration()
        upgrade.resetTimeout = FirmwareUpgradeConfiguration().resetTimeout
        let result: Result<FirmwareUpgradeReport, FirmwareUpgradeError>
        do throws(FirmwareUpgradeError) {
            result = .success(try await FirmwareUpgradeManager(client: client).upgrade(
                images: [FirmwareUpgradeImage(image: image)], configuration: upgrade))
        } catch {
            result = .failure(error)
        }
        await client.close()
        let resets = await device.requestLog.filter { $0.group == 0 && $0.command == 5 }.count
        let erases = await device.requestLog.filter { $0.group == 1 && $0.command == 5 }.count
        let primary = await device.slotStates().first { $0.image == 0 && $0.slot == 0 }
        return Outcome(
            result: result, resetsSeen: resets, erasesSeen: erases, boots: await device.bootCount, primary: primary, image: image)
    }

    static func expectUpgraded(_ outcome: Outcome, sourceLocation: SourceLocation = #_sourceLocation) {
        if case .failure(let error) = outcome.result {
            Issue.record("the upgrade failed: \(error)", sourceLocation: sourceLocation)
        }
        #expect(outcome.primary?.hash == outcome.image.hash, "the device does not run the new image", sourceLocation: sourceLocation)
        #expect(outcome.primary?.confirmed == true, "the new image is not confirmed", sourceLocation: sourceLocation)
        // One boot at start, one for the upgrade: no second reset reverted it.
        #expect(outcome.boots == 2, "\(outcome.boots) boots", sourceLocation: sourceLocation)
    }

    @Test("the reset's answer is lost: one reset, the new image runs and is confirmed")
    func answerLost() async throws {
        let answers = LossyLink.resets(losing: [0])
        let outcome = try await Self.upgrade(responses: answers)
        #expect(answers.lost == 1)
        #expect(outcome.resetsSeen == 1, "the device got \(outcome.resetsSeen) reset requests")
        Self.expectUpgraded(outcome)
    }

    @Test("the reset's answer is lost and the device boots slowly (8 s): still one reset")
    func answerLostSlowBoot() async throws {
        let answers = LossyLink.resets(losing: [0])
        let outcome = try await Self.upgrade(responses: answers, bootDuration: .seconds(8))
        #expect(outcome.resetsSeen == 1, "the device got \(outcome.resetsSeen) reset requests")
        Self.expectUpgraded(outcome)
    }

    @Test("the reset request itself is lost: asked again once the device kept answering unchanged, one reboot")
    func requestLost() async throws {
        let requests = LossyLink.resets(losing: [0])
        let outcome = try await Self.upgrade(requests: requests)
        #expect(requests.lost == 1)
        // The device saw only the second request (the first never reached it).
        #expect(outcome.resetsSeen == 1)
        Self.expectUpgraded(outcome)
    }

    @Test("the first four reset requests are lost: asked again until one arrives (not three times at most), one reboot")
    func requestLostFourTimes() async throws {
        let requests = LossyLink.resets(losing: [0, 1, 2, 3])
        let outcome = try await Self.upgrade(requests: requests)
        #expect(requests.lost == 4)
        #expect(outcome.resetsSeen == 1)
        Self.expectUpgraded(outcome)
    }

    @Test("the erase of a foreign pending image loses its answer: the table shows it happened, no second erase")
    func eraseAnswerLost() async throws {
        let answers = LossyLink.Filter(losing: [0]) { $0.group == SMPGroup.image.rawValue && $0.command == 5 }
        let outcome = try await Self.upgrade(responses: answers, foreignPendingImage: true)
        #expect(answers.lost == 1)
        #expect(outcome.erasesSeen == 1)
        Self.expectUpgraded(outcome)
    }

    @Test("the erase request itself is lost: the table still shows the pending image, so it is erased again")
    func eraseRequestLost() async throws {
        let requests = LossyLink.Filter(losing: [0]) { $0.group == SMPGroup.image.rawValue && $0.command == 5 }
        let outcome = try await Self.upgrade(requests: requests, foreignPendingImage: true)
        #expect(requests.lost == 1)
        #expect(outcome.erasesSeen == 1)
        Self.expectUpgraded(outcome)
    }

    @Test("every reset answer is lost: the upgrade still completes with one reboot")
    func everyAnswerLost() async throws {
        let answers = LossyLink.resets(losing: Set(0..<10))
        let outcome = try await Self.upgrade(responses: answers)
        #expect(outcome.resetsSeen == 1)
        Self.expectUpgraded(outcome)
    }
}
