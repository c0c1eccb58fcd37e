import Foundation
import McuMgr
import McuMgrFleet
import McuMgrConnection
import McuMgrTools
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// Fleets of simulated devices upgraded at once, on virtual time (devices, sessions, back-offs and
/// the fleet share one `VirtualRuntime` clock).
@Suite("Fleet upgrade: many simulated devices at once", .virtualTime)
struct FleetUpgradeTests {
    /// The most devices in the `upload` state at the same time, from the fleet's events.
    static func peakUploading(_ events: AsyncStream<FleetEvent>) async -> Int {
        var uploading: Set<Int> = []
        var peak = 0
        for await event in events {
            guard case .device(let device, let deviceEvent) = event else { continue }
            switch deviceEvent {
            case .upgrade(.stateChanged(.upload)): uploading.insert(device.index)
            case .upgrade(.stateChanged), .finished, .retrying: uploading.remove(device.index)
            default: break
            }
            peak = max(peak, uploading.count)
        }
        return peak
    }

    @Test("32 devices upgraded at once: each runs the new image from slot 0, confirmed, byte-identical; the report lists each")
    func thirtyTwoAtOnce() async throws {
        let fleet = try await SimulatedFleet.make(count: 32, link: LinkConfiguration(latency: .milliseconds(5)))
        let image = try FleetFixtures.image()
        let upgrade = try FleetUpgrade(
            devices: fleet.fleetDevices, images: [FirmwareUpgradeImage(image: image)],
            configuration: FleetFixtures.configuration(), connector: fleet.connector)
        let peak = VirtualRuntime.currentClock.task { [events = upgrade.events()] in await Self.peakUploading(events) }
        let report = await upgrade.run()

        #expect(report.exitStatus == .success)
        #expect(report.upgraded.count == 32)
        #expect(report.stopReason == nil)
        #expect(await peak.value == 32, "the UDP default runs every device at once")
        for index in 0..<32 {
            #expect(await fleet.runsConfirmed(index, image), "dev-\(index)")
            let result = report.devices[index]
            #expect(result.device.name == "dev-\(index)")
            #expect(result.device.target == .spec(.udp(fleet.endpoints[index])))
            #expect(result.attempts == 1)
            guard case .upgraded(let deviceReport) = result.outcome else {
                Issue.record("dev-\(index): \(result.outcome)")
                continue
            }
            #expect(deviceReport.uploadedImages == [0])
            #expect(deviceReport.bytesUploaded == image.bytes.count)
            #expect(deviceReport.resets == 1)
        }
        #expect(report.bytesUploaded == 32 * image.bytes.count)

        // The JSON report lists each device by name and address, upgraded, with its final image table.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try JSONOutput.encode(report).utf8)) as? [String: Any])
        #expect(json["ok"] as? Bool == true)
        #expect(json["exit_status"] as? Int == 0)
        #expect((json["totals"] as? [String: Int])?["upgraded"] == 32)
        let devices = try #require(json["devices"] as? [[String: Any]])
        #expect(devices.map { $0["name"] as? String } == (0..<32).map { "dev-\($0)" })
        #expect(devices.map { $0["connection"] as? String } == fleet.endpoints.map { "udp:\($0)" })
        #expect(devices.allSatisfy { $0["result"] as? String == "upgraded" })
        let hash = image.hash.map { String(format: "%02x", $0) }.joined()
        for device in devices {
            let slots = try #require(device["images"] as? [[String: Any]])
            #expect(slots.contains { $0["hash"] as? String == hash && $0["active"] as? Bool == true && $0["confirmed"] as? Bool == true })
        }
    }

    @Test("a second run finds every device done: unchanged, and not one upload request")
    func rerunUploadsNothing() async throws {
        let fleet = try await SimulatedFleet.make(count: 4)
        let images = [FirmwareUpgradeImage(image: try FleetFixtures.image())]
        let first = try await FleetUpgrade(devices: fleet.fleetDevices, images: images, configuration: FleetFixtures.configuration(), connector: fleet.connector).run()
        #expect(first.upgraded.count == 4)
        let before = await fleet.uploadRequestCounts()
        let second = try await FleetUpgrade(devices: fleet.fleetDevices, images: images, configuration: FleetFixtures.configuration(), connector: fleet.connector).run()
        #expect(second.unchanged.count == 4)
        #expect(second.exitStatus == .success)
        #expect(await fleet.uploadRequestCounts() == before, "the planner sees the image running, confirmed, and uploads nothing")
        for index in 0..<4 {
            #expect(await fleet.devices[index].bootCount == 2, "no second reset")
            #expect(second.devices[index].outcome.report?.bytesUploaded == 0)
        }
    }
}
