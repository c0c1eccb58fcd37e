import McuMgr
import McuMgrFleet
import McuMgrTools
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// Faulty devices in a fleet: which fail, why, and what a rerun with retries recovers.
@Suite("Fleet upgrade: faulty devices and retries", .virtualTime)
struct FleetFaultTests {
    /// The faulty devices of 16, as `mcumgr-sim --devices 16 --faulty 4 --seed 5` chooses them.
    static let plan = SimulatorFaultPlan(count: 16, faulty: 4, seed: 5)

    static func index(of fault: SimulatorFault) -> Int {
        plan.faults.first { $0.value == fault }!.key
    }

    @Test("the fault plan deals one of each fault to 4 devices of 16, the same for the same seed")
    func planIsDeterministic() {
        #expect(Set(Self.plan.faults.values) == [.drops, .resetsMidUpload, .busy, .refusesImage])
        #expect(Self.plan.faults.count == 4)
        #expect(SimulatorFaultPlan(count: 16, faulty: 4, seed: 5) == Self.plan)
        #expect(SimulatorFaultPlan(count: 16, faulty: 4, seed: 6) != Self.plan)
        let explicit = SimulatorFaultPlan(count: 16, faulty: 4, seed: 5, explicit: [0: .staysDownAfterReset])
        #expect(explicit[0] == .staysDownAfterReset)
    }

    @Test("4 of 16 faulty: the report says which failed and why (reset mid-upload, busy, refused; the lossy one gets through), the others are upgraded; a rerun with retries upgrades the recoverable ones and uploads nothing to the done ones")
    func faultyQuarterThenRerun() async throws {
        let fleet = try await SimulatedFleet.make(count: 16, faults: Self.plan.faults)
        let image = try FleetFixtures.image()
        let images = [FirmwareUpgradeImage(image: image)]
        let reset = Self.index(of: .resetsMidUpload), drops = Self.index(of: .drops)
        let busy = Self.index(of: .busy), refuses = Self.index(of: .refusesImage)

        // First run, no retries.
        let first = try await FleetUpgrade(
            devices: fleet.fleetDevices, images: images, configuration: FleetFixtures.configuration(), connector: fleet.connector
        ).run()
        // The lossy device gets through on the session's and the upload engine's resends; the
        // three others fail, each in its own way.
        let failed = Set(first.failed.map(\.device.index))
        #expect(failed == [reset, busy, refuses], "\(first.summary)")
        #expect(first.upgraded.count == 13)
        #expect(first.exitStatus == .device)
        for result in first.upgraded { #expect(await fleet.runsConfirmed(result.device.index, image)) }

        let refusal = try #require(first.devices[refuses].outcome.failure)
        #expect(refusal.phase == .upgrade(.upload))
        #expect(refusal.deviceError == .status(.accessDenied, reason: nil))
        #expect(!refusal.isRetriable)
        let busyFailure = try #require(first.devices[busy].outcome.failure)
        #expect(busyFailure.phase == .upgrade(.validate))
        #expect(busyFailure.deviceError == .status(.busy, reason: nil))
        #expect(busyFailure.isRetriable)
        let resetFailure = try #require(first.devices[reset].outcome.failure)
        #expect(resetFailure.phase == .upgrade(.upload))
        guard case .upgrade(let resetError) = resetFailure.reason, case .upload(.stalled) = resetError.reason else {
            Issue.record("the device that reset mid-upload: \(resetFailure)")
            return
        }
        #expect(resetFailure.isRetriable)
        #expect(await fleet.runsConfirmed(drops, image))
        let dropped = await fleet.devices[drops].requestLog.filter { $0.outcome == .dropped("fault: drop") }
        #expect(!dropped.isEmpty, "the lossy device did drop requests")

        // The summary names each failed device with its state and error.
        let summary = first.summary
        #expect(summary.contains("13 upgraded, 0 unchanged, 3 failed, 0 not started"))
        #expect(summary.contains("dev-\(refuses) (udp:127.0.0.\(2 + refuses):1337), 1 attempt: failed in state upload:"))
        #expect(summary.contains("dev-\(busy) (udp:127.0.0.\(2 + busy):1337), 1 attempt: failed in state validate:"))

        // Rerun with retries: the recoverable ones are upgraded, the done ones get no upload request.
        let before = await fleet.uploadRequestCounts()
        let second = try await FleetUpgrade(
            devices: fleet.fleetDevices, images: images, configuration: FleetFixtures.configuration(retries: 4), connector: fleet.connector
        ).run()
        let after = await fleet.uploadRequestCounts()
        for index in 0..<16 {
            let outcome = second.devices[index].outcome
            switch index {
            case refuses:
                #expect(outcome.failure?.deviceError == .status(.accessDenied, reason: nil))
                #expect(second.devices[index].attempts == 1, "a refusal is not retried")
            case reset, busy:
                guard case .upgraded = outcome else {
                    Issue.record("dev-\(index) (\(fleet.faults[index]!)): \(outcome)")
                    continue
                }
                #expect(await fleet.runsConfirmed(index, image))
            default:
                guard case .unchanged = outcome else {
                    Issue.record("dev-\(index): \(outcome)")
                    continue
                }
                #expect(after[index] == before[index], "dev-\(index) was done: no upload request in the rerun")
            }
        }
        #expect(second.upgraded.count == 2)
        #expect(second.unchanged.count == 13)
        #expect(second.failed.map(\.device.index) == [refuses])
        #expect(second.exitStatus == .device)
    }

    @Test("a device whose profile does not exist fails to connect, named, and the others go on: in an upgrade and in a dry run")
    func unknownProfile() async throws {
        let fleet = try await SimulatedFleet.make(count: 2)
        let image = try FleetFixtures.image()
        let images = [FirmwareUpgradeImage(image: image)]
        let devices = [fleet.fleetDevices[0], FleetDevice(.profile("nowhere"), name: "lost"), fleet.fleetDevices[1]]

        let report = try await FleetUpgrade(
            devices: devices, images: images, configuration: FleetFixtures.configuration(), connector: fleet.connector
        ).run()
        #expect(report.upgraded.map(\.device.index) == [0, 2], "\(report.summary)")
        let failure = try #require(report.devices[1].outcome.failure)
        #expect(failure.phase == .connect)
        guard case .profile = failure.reason else {
            Issue.record("\(failure)")
            return
        }
        #expect(!failure.reachedDevice)

        let dryRun = try FleetDryRun(devices: devices, images: images, upgrade: FleetFixtures.upgradeConfiguration, connector: fleet.connector)
        let entries = await dryRun.run().entries
        // The two others run the new image confirmed by now.
        #expect(entries.map(\.action.category) == ["nothing", "unreadable", "nothing"])
        #expect(entries.map(\.device.name) == ["dev-0", "lost", "dev-1"])
    }
}
