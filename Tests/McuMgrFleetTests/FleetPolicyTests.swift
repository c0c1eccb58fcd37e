import McuMgr
import McuMgrFleet
import McuMgrConnection
import McuMgrTools
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Synchronization
import Testing

/// Canaries, the failure limit, retries with back-off, pause, resume and cancel, and several
/// consumers of one fleet's events.
@Suite("Fleet upgrade: policies", .virtualTime)
struct FleetPolicyTests {
    static func images() throws -> [FirmwareUpgradeImage] {
        [FirmwareUpgradeImage(image: try FleetFixtures.image())]
    }

    @Test("canary: the first device never answers after its reset; it fails, and not one packet reaches the others")
    func canaryDoesNotComeBack() async throws {
        let fleet = try await SimulatedFleet.make(count: 6, faults: [0: .staysDownAfterReset])
        let report = try await FleetUpgrade(
            devices: fleet.fleetDevices, images: try Self.images(), configuration: FleetFixtures.configuration(canaryCount: 1),
            connector: fleet.connector
        ).run()
        let canary = try #require(report.devices[0].outcome.failure)
        #expect(canary.phase == .upgrade(.reset))
        guard case .upgrade(let error) = canary.reason, case .deviceDidNotReturn = error.reason else {
            Issue.record("\(canary)")
            return
        }
        #expect(report.stopReason == .canaryFailed(device: "dev-0"))
        #expect(report.notStarted.map(\.device.index) == [1, 2, 3, 4, 5])
        #expect(report.exitStatus == .device)
        #expect(report.summary.contains("Stopped: canary device dev-0 failed"))
        for index in 1..<6 {
            // The plan needs nothing of them: they were never connected, so no packet at all arrived.
            #expect(await fleet.devices[index].packetsReceived == 0, "dev-\(index)")
            #expect(await fleet.devices[index].bootCount == 1)
            #expect(await fleet.devices[index].slotStates().map(\.hash) == [fleet.runningImage.hash])
        }
    }

    @Test("canary: the first device's bootloader refuses the new image at boot (downgrade prevention, it runs 3.0.0); no other device is touched")
    func canaryImageRefusedAtBoot() async throws {
        let fleet = try await SimulatedFleet.make(count: 4) { index, configuration in
            if index == 0 { configuration.preventsDowngrade = true }
        }
        let newer = try FleetFixtures.image(size: 8 * 1024, version: "3.0.0", seed: 3)
        await fleet.devices[0].install(newer.bytes, image: 0, slot: 0, mark: .confirmed)
        let report = try await FleetUpgrade(
            devices: fleet.fleetDevices, images: try Self.images(), configuration: FleetFixtures.configuration(canaryCount: 1),
            connector: fleet.connector
        ).run()
        let canary = try #require(report.devices[0].outcome.failure)
        guard case .upgrade(let error) = canary.reason, case .imageNotActive(0) = error.reason else {
            Issue.record("\(canary)")
            return
        }
        #expect(!canary.isRetriable)
        #expect(await fleet.devices[0].slotStates().first { $0.active }?.hash == newer.hash, "MCUboot kept 3.0.0")
        #expect(report.notStarted.map(\.device.index) == [1, 2, 3])
        #expect(report.exitStatus == .device)
        for index in 1..<4 { #expect(await fleet.devices[index].packetsReceived == 0) }
    }

    @Test("canaries that come back healthy: the rest start only after their health check")
    func canariesPass() async throws {
        let fleet = try await SimulatedFleet.make(count: 5)
        let images = try Self.images()
        let upgrade = try FleetUpgrade(
            devices: fleet.fleetDevices, images: images, configuration: FleetFixtures.configuration(canaryCount: 2), connector: fleet.connector)
        let order = VirtualRuntime.currentClock.task { [events = upgrade.events()] in
            var log: [String] = []
            for await event in events {
                switch event {
                case .device(let device, .attemptStarted): log.append("start \(device.index)")
                case .device(let device, .checkingHealth): log.append("check \(device.index)")
                case .canariesPassed(let count): log.append("passed \(count)")
                default: break
                }
            }
            return log
        }
        let report = await upgrade.run()
        #expect(report.upgraded.count == 5)
        let log = await order.value
        let passed = try #require(log.firstIndex(of: "passed 2"))
        #expect(Set(log[..<passed]) == ["start 0", "start 1", "check 0", "check 1"])
        #expect(Set(log[passed...].dropFirst()) == ["start 2", "start 3", "start 4"])
        for index in 0..<5 { #expect(await fleet.runsConfirmed(index, images[0].image)) }
    }

    @Test("the failure limit: one device at a time, two refuse the image, the rest never start")
    func failureLimit() async throws {
        let fleet = try await SimulatedFleet.make(count: 8, faults: [0: .refusesImage, 1: .refusesImage])
        let report = try await FleetUpgrade(
            devices: fleet.fleetDevices, images: try Self.images(),
            configuration: FleetFixtures.configuration(concurrency: FleetConcurrency(limit: 1), maximumFailures: 2), connector: fleet.connector
        ).run()
        #expect(report.failed.map(\.device.index) == [0, 1])
        #expect(report.notStarted.map(\.device.index) == [2, 3, 4, 5, 6, 7])
        #expect(report.stopReason == .tooManyFailures(failed: 2, limit: 2))
        for index in 2..<8 { #expect(await fleet.devices[index].packetsReceived == 0) }
    }

    @Test("retries wait on the fleet's clock, doubling: 2 s, then 4 s")
    func retryBackOff() async throws {
        // Busy for 40 answers: more than three attempts ride out under a 5 s step timeout.
        var parameters = FleetFixtures.faultParameters
        parameters.busyAnswers = 40
        let fleet = try await SimulatedFleet.make(count: 1, faults: [0: .busy], parameters: parameters)
        let upgrade = try FleetUpgrade(
            devices: fleet.fleetDevices, images: try Self.images(), configuration: FleetFixtures.configuration(retries: 2), connector: fleet.connector)
        let delays = VirtualRuntime.currentClock.task { [events = upgrade.events()] in
            var delays: [Duration] = []
            for await event in events {
                if case .device(_, .retrying(let delay, let failure)) = event {
                    delays.append(delay)
                    #expect(failure.deviceError == .status(.busy, reason: nil))
                }
            }
            return delays
        }
        let report = await upgrade.run()
        #expect(await delays.value == [.seconds(2), .seconds(4)])
        #expect(report.devices[0].attempts == 3)
        #expect(report.failed.count == 1)
    }

    @Test("Bluetooth LE devices take turns per adapter, serial devices per port; UDP devices all run at once")
    func lanes() async throws {
        let fleet = try await SimulatedFleet.make(count: 8)
        // BLE and serial specs reach the same simulated devices in memory.
        let specs: [ConnectionSpec] = [
            .ble(BLEConnectionParameters(peer: .address("AA:00:00:00:00:01"), adapter: "hci0")),
            .ble(BLEConnectionParameters(peer: .address("AA:00:00:00:00:02"), adapter: "hci0")),
            .ble(BLEConnectionParameters(peer: .address("AA:00:00:00:00:03"), adapter: "hci0")),
            .ble(BLEConnectionParameters(peer: .address("AA:00:00:00:00:04"), adapter: "hci1")),
            .ble(BLEConnectionParameters(peer: .address("AA:00:00:00:00:05"), adapter: "hci1")),
            // Two devices behind one port (a test jig switching between them): one lane.
            .serial(SerialConnectionParameters(device: "/dev/ttyFLEET0", baudRate: 115_200)),
            .serial(SerialConnectionParameters(device: "/dev/ttyFLEET0", baudRate: 1_000_000)),
            .udp(fleet.endpoints[7]),
        ]
        let devices = Dictionary(uniqueKeysWithValues: zip(specs, fleet.devices))
        var connector = fleet.connector
        for kind in [TransportKind.ble, .serial] {
            connector.factory.register(kind) { spec, options throws(ConnectionError) in
                guard let device = devices[spec] else { throw .unsupported(spec) }
                return await device.makeLoopbackTransport(maximumPacketSize: 244)
            }
        }
        let upgrade = try FleetUpgrade(
            devices: specs.map { FleetDevice($0) }, images: try Self.images(), configuration: FleetFixtures.configuration(), connector: connector)
        let peaks = VirtualRuntime.currentClock.task { [events = upgrade.events()] in
            var running: [String: Set<Int>] = [:]
            var peaks: [String: Int] = [:]
            var all: Set<Int> = []
            var peakAll = 0
            for await event in events {
                guard case .device(let device, let deviceEvent) = event, case .spec(let spec) = device.target else { continue }
                let lane = FleetConcurrency.lane(of: spec)?.description ?? "none"
                switch deviceEvent {
                case .attemptStarted:
                    running[lane, default: []].insert(device.index)
                    all.insert(device.index)
                case .finished:
                    running[lane, default: []].remove(device.index)
                    all.remove(device.index)
                default: break
                }
                peaks[lane] = max(peaks[lane] ?? 0, running[lane]?.count ?? 0)
                peakAll = max(peakAll, all.count)
            }
            return (peaks, peakAll)
        }
        let report = await upgrade.run()
        #expect(report.upgraded.count == 8)
        let (perLane, overall) = await peaks.value
        #expect(perLane == ["ble hci0": 1, "ble hci1": 1, "serial /dev/ttyFLEET0": 1, "none": 1])
        #expect(overall == 4, "one per adapter, one per port, and the UDP device beside them")
    }

    @Test("pause holds every upload (after the chunks in flight) until resume; then all finish")
    func pauseAndResume() async throws {
        let fleet = try await SimulatedFleet.make(count: 4, link: LinkConfiguration(latency: .milliseconds(10)))
        let clock = VirtualRuntime.currentClock
        let upgrade = try FleetUpgrade(
            devices: fleet.fleetDevices, images: try Self.images(), configuration: FleetFixtures.configuration(), connector: fleet.connector)
        let events = upgrade.events()
        upgrade.start()
        // Pause once every device is uploading.
        var uploading: Set<Int> = []
        for await event in events {
            if case .device(let device, .upgrade(.uploadProgress)) = event { uploading.insert(device.index) }
            if uploading.count == 4 { break }
        }
        upgrade.pause()
        #expect(upgrade.isPaused)
        try await clock.sleep(for: .seconds(1))
        let held = upgrade.statuses.map { $0.progress?.bytesSent ?? 0 }
        try await clock.sleep(for: .seconds(30))
        #expect(upgrade.statuses.map { $0.progress?.bytesSent ?? 0 } == held, "no byte moves while paused")
        #expect(upgrade.statuses.allSatisfy { $0.outcome == nil })
        upgrade.resume()
        let report = await upgrade.result()
        #expect(report.upgraded.count == 4)
    }

    @Test("cancel stops every device; the report says cancelled, and a later run finishes them")
    func cancelAll() async throws {
        let fleet = try await SimulatedFleet.make(count: 3, link: LinkConfiguration(latency: .milliseconds(10)))
        let images = try Self.images()
        let upgrade = try FleetUpgrade(
            devices: fleet.fleetDevices, images: images, configuration: FleetFixtures.configuration(retries: 3), connector: fleet.connector)
        let events = upgrade.events()
        upgrade.start()
        for await event in events {
            if case .device(_, .upgrade(.uploadProgress(_, let progress))) = event, progress.fraction > 0.3 { break }
        }
        upgrade.cancel()
        let report = await upgrade.result()
        #expect(report.stopReason == .cancelled)
        #expect(report.exitStatus == .interrupted)
        #expect(report.upgraded.isEmpty)
        for result in report.devices {
            guard case .upgrade(let error) = result.outcome.failure?.reason, case .cancelled = error.reason else {
                Issue.record("dev-\(result.device.index): \(result.outcome)")
                continue
            }
            #expect(result.attempts == 1, "a cancelled device is not retried")
        }
        let again = try await FleetUpgrade(
            devices: fleet.fleetDevices, images: images, configuration: FleetFixtures.configuration(), connector: fleet.connector
        ).run()
        #expect(again.upgraded.count == 3)
    }

    @Test("several consumers each see every event, in the same order")
    func severalConsumers() async throws {
        let fleet = try await SimulatedFleet.make(count: 3)
        let upgrade = try FleetUpgrade(
            devices: fleet.fleetDevices, images: try Self.images(), configuration: FleetFixtures.configuration(), connector: fleet.connector)
        func record(_ events: AsyncStream<FleetEvent>) -> Task<[String], Never> {
            VirtualRuntime.currentClock.task {
                var seen: [String] = []
                for await event in events {
                    switch event {
                    case .started(let devices): seen.append("started \(devices.count)")
                    case .device(let device, .upgrade(.stateChanged(let state))): seen.append("\(device.index) \(state)")
                    case .device(let device, .finished(let outcome)): seen.append("\(device.index) \(outcome.succeeded)")
                    case .finished(let report): seen.append("finished \(report.upgraded.count)")
                    default: break
                    }
                }
                return seen
            }
        }
        let ui = record(upgrade.events()), log = record(upgrade.events())
        _ = await upgrade.run()
        let a = await ui.value, b = await log.value
        #expect(a == b)
        #expect(a.first == "started 3")
        #expect(a.last == "finished 3")
        #expect(a.filter { $0.hasSuffix(" success") }.count == 3)
        // A subscriber after the end gets an ended stream.
        var late = 0
        for await _ in upgrade.events() { late += 1 }
        #expect(late == 0)
    }

    @Test("bad policies are refused before anything is sent")
    func badPolicies() async throws {
        let fleet = try await SimulatedFleet.make(count: 1)
        let images = try Self.images()
        func refuses(_ configuration: FleetConfiguration, devices: [FleetDevice]? = nil, images given: [FirmwareUpgradeImage]? = nil) -> Bool {
            do {
                _ = try FleetUpgrade(devices: devices ?? fleet.fleetDevices, images: given ?? images, configuration: configuration, connector: fleet.connector)
                return false
            } catch {
                return true
            }
        }
        #expect(refuses(FleetFixtures.configuration(), devices: []))
        #expect(refuses(FleetFixtures.configuration(concurrency: FleetConcurrency(limit: 0))))
        #expect(refuses(FleetFixtures.configuration(retries: -1)))
        #expect(refuses(FleetFixtures.configuration(maximumFailures: 0)))
        #expect(refuses(FleetFixtures.configuration(), images: []))
        #expect(refuses(FleetFixtures.configuration(), images: images + images), "two images with the same number")
        #expect(await fleet.devices[0].packetsReceived == 0)
    }
}

/// The one retry rule the upgrade and its dry run go by.
@Suite("Fleet retry rule")
struct FleetRetryRuleTests {
    @Test("a failure that may pass is tried again after the doubling back-off, up to the retries; a refusal never")
    func retryDelay() {
        let configuration = FleetConfiguration(retries: 2, retryBackOff: .seconds(2), maximumRetryBackOff: .seconds(3))
        let timeout = FleetFailure(
            phase: .upgrade(.upload), reason: .session(.timeout(group: .image, command: 1, attempts: 3)), reachedDevice: true)
        let unhealthy = FleetFailure(phase: .healthCheck, reason: .unhealthy("slot 0 is not confirmed"), reachedDevice: true)
        #expect(configuration.retryDelay(after: timeout, attempt: 1) == .seconds(2))
        #expect(configuration.retryDelay(after: timeout, attempt: 2) == .seconds(3))  // 4 s, capped
        #expect(configuration.retryDelay(after: timeout, attempt: 3) == nil)  // the retries are used up
        #expect(configuration.retryDelay(after: unhealthy, attempt: 1) == nil)
    }
}
