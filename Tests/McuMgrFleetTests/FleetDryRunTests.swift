import Foundation
import McuMgr
import McuMgrFleet
import McuMgrConnection
import McuMgrTools
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import SMPUDP
import Testing

/// Dry runs and inventories: reads only, and what the planner says for each device.
@Suite("Fleet dry run and inventory", .virtualTime)
struct FleetDryRunTests {
    @Test("a busy device is read again after the upgrade's retry back-off, as the upgrade would try it again, not called unreadable (issue 32)")
    func dryRunWaitsOutABusyDevice() async throws {
        // 14 busy answers: more than one reading rides out, fewer than two do.
        let fleet = try await SimulatedFleet.make(count: 2, faults: [1: .busy])
        let image = try FleetFixtures.image()
        let once = try await FleetDryRun(
            devices: fleet.fleetDevices, images: [FirmwareUpgradeImage(image: image)], upgrade: FleetFixtures.upgradeConfiguration,
            connector: fleet.connector
        ).run()
        #expect(once.entries.map(\.action.category) == ["upload", "unreadable"], "without retries, as the upgrade without retries fails it")

        // A fresh fleet: the first run used some of the busy answers.
        let fresh = try await SimulatedFleet.make(count: 2, faults: [1: .busy])
        let retried = try await FleetDryRun(
            devices: fresh.fleetDevices, images: [FirmwareUpgradeImage(image: image)], upgrade: FleetFixtures.upgradeConfiguration,
            connector: fresh.connector, retries: 4, retryBackOff: .seconds(2)
        ).run()
        #expect(retried.entries.map(\.action.category) == ["upload", "upload"], "\(retried.text)")
        #expect(retried.exitStatus == .success)
    }

    @Test("a dry run says per device: upload, test, confirm, nothing, refuse (downgrade), unreadable; it writes nothing")
    func dryRun() async throws {
        let fleet = try await SimulatedFleet.make(count: 5)
        let image = try FleetFixtures.image()
        let old = fleet.runningImage
        // dev-1 holds the new image in slot 1, unmarked; dev-2 runs it on test (1.0.0 confirmed in
        // slot 1, to revert to); dev-3 runs it confirmed; dev-4 runs a newer 3.0.0.
        await fleet.devices[1].install(image.bytes, image: 0, slot: 1)
        await fleet.devices[2].install(image.bytes, image: 0, slot: 0)
        await fleet.devices[2].install(old.bytes, image: 0, slot: 1, mark: .confirmed)
        await fleet.devices[3].install(image.bytes, image: 0, slot: 0, mark: .confirmed)
        await fleet.devices[4].install(try FleetFixtures.image(size: 8 * 1024, version: "3.0.0", seed: 3).bytes, image: 0, slot: 0, mark: .confirmed)
        let tables = await fleet.devices.asyncMap { await $0.slotStates() }

        var upgrade = FleetFixtures.upgradeConfiguration
        upgrade.rejectsDowngrade = true
        let devices = fleet.fleetDevices + [FleetDevice(.udp(UDPEndpoint(host: "127.0.0.99", port: 1337)), name: "ghost")]
        let report = try await FleetDryRun(
            devices: devices, images: [FirmwareUpgradeImage(image: image)], upgrade: upgrade, connector: fleet.connector
        ).run()

        #expect(report.entries.map(\.action.category) == ["upload", "test", "confirm", "nothing", "refuse", "unreadable"])
        #expect(report.entries[0].steps == ["upload image 0 (\(image.bytes.count) bytes)", "test image 0", "reset", "confirm image 0"])
        #expect(report.entries[1].steps == ["test image 0", "reset", "confirm image 0"])
        #expect(report.entries[2].steps == ["confirm image 0"])
        #expect(report.entries[3].steps.isEmpty)
        guard case .refuse(let refusal) = report.entries[4].action, case .downgradeRefused(0, "3.0.0", "2.0.0") = refusal.reason else {
            Issue.record("\(report.entries[4].action)")
            return
        }
        #expect(report.entries[0].running == [0: "1.0.0"])
        #expect(report.entries[0].new == [0: "2.0.0"])
        #expect(report.entries[4].running == [0: "3.0.0"])
        #expect(report.totals == ["upload": 1, "test": 1, "confirm": 1, "nothing": 1, "refuse": 1, "unreadable": 1])
        #expect(report.bytesToUpload == image.bytes.count)
        #expect(report.exitStatus == .device)
        #expect(report.text.contains("Dry run: 6 devices: 1 upload, 1 test, 1 confirm, 1 nothing, 1 refuse, 1 unreadable"))

        // Only reads reached the devices, and their tables are as they were.
        for (index, device) in fleet.devices.enumerated() {
            let writes = await device.requestLog.filter { $0.operation != 0 }
            #expect(writes.isEmpty, "dev-\(index): \(writes)")
            #expect(await device.slotStates() == tables[index])
        }
    }

    @Test("a dry run refuses an image number the device lacks")
    func missingImageIndex() async throws {
        let fleet = try await SimulatedFleet.make(count: 1)
        let report = try await FleetDryRun(
            devices: fleet.fleetDevices, images: [FirmwareUpgradeImage(index: 1, image: try FleetFixtures.image())],
            upgrade: FleetFixtures.upgradeConfiguration, connector: fleet.connector
        ).run()
        guard case .refuse(let error) = report.entries[0].action else {
            Issue.record("\(report.entries[0].action)")
            return
        }
        #expect(error.description.contains("the device has no image 1"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try JSONOutput.encode(report).utf8)) as? [String: Any])
        let entry = try #require((json["devices"] as? [[String: Any]])?.first)
        #expect(entry["action"] as? String == "refuse")
        #expect((entry["problem"] as? String)?.contains("no image 1") == true)
    }

    @Test("an inventory lists each device's running version; an unreachable one is named")
    func inventory() async throws {
        let fleet = try await SimulatedFleet.make(count: 3)
        let image = try FleetFixtures.image()
        await fleet.devices[1].install(image.bytes, image: 0, slot: 0, mark: .confirmed)
        let devices = fleet.fleetDevices + [FleetDevice(.udp(UDPEndpoint(host: "127.0.0.99", port: 1337)))]
        let report = await FleetInventory(devices: devices, connector: fleet.connector).run()
        #expect(report.entries.map { $0.running.first?.version } == ["1.0.0", "2.0.0", "1.0.0", nil])
        #expect(report.entries[3].failure?.phase == .connect)
        #expect(report.exitStatus == .device)
        let line = try #require(report.text.split(separator: "\n").first { $0.hasPrefix("dev-1 ") })
        #expect(line.split(separator: " ").prefix(4) == ["dev-1", "udp:127.0.0.3:1337", "2.0.0", "confirmed"])
        #expect(report.text.contains("3 of 4 devices read"))
    }
}

extension Array {
    /// The results of `transform` on each element, one after the other.
    func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var results: [T] = []
        for element in self { results.append(await transform(element)) }
        return results
    }
}
