import BLEHost
import GATT
import Logging
import SMP
import SMPTestSupport
import SMPTestTraits
import Testing

/// Issue 33, defect 2: a scan in a crowd of advertisers, from a ``ScriptedController`` in process on virtual time.
@Suite("A crowded scan: thousands of other advertisers before the one asked for (issue 33)", .virtualTime)
struct CrowdedScanTests {
    static let smp = BluetoothUUID(string: "8D53DC1D-1DB7-4CD3-868B-8A527460AA84")!

    /// Starts a host on `controller`; the controller answers on the same virtual clock.
    static func startHost(_ controller: ScriptedController, clock: SMPClock) async throws -> LEHost {
        let hostClock = HostClock(clock, taskExecutor: clock.taskExecutor)
        controller.start(on: hostClock)
        let host = LEHost(transport: controller.transport, clock: hostClock, logger: Logger(label: "ble.host.test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await host.start()
        return host
    }

    /// Reports from `count` advertisers numbered from `first` that list another service (Heart Rate).
    static func crowd(_ controller: ScriptedController, clock: SMPClock, first: Int, count: Int) async {
        for n in first..<(first + count) {
            let data = AdvertisingData.advertisement(services: [BluetoothUUID(0x180D)], name: "other-\(n)")
            await controller.send(ScriptedController.advertisingReport(ScriptedController.address(n), data: data))
            if n % 100 == 99 { try? await clock.sleep(for: .milliseconds(1)) }
        }
    }

    /// A controller that, once scanning is on, reports 5000 other advertisers, then the SMP device
    /// (its advertisement lists the SMP service; its name comes in the scan response), then 1000 others more.
    static func crowdedController(clock: SMPClock, device: LEAddress) -> ScriptedController {
        ScriptedController(onScanEnabled: { controller in
            clock.task {
                await crowd(controller, clock: clock, first: 0, count: 5000)
                await controller.send(
                    ScriptedController.advertisingReport(device, data: AdvertisingData.advertisement(services: [smp], name: nil), type: 0))
                await controller.send(ScriptedController.advertisingReport(device, data: AdvertisingData.scanResponse(name: "smp-dev"), type: 4))
                await crowd(controller, clock: clock, first: 5000, count: 1000)
            }
        })
    }

    @Test("with 5000 other advertisers before it, a scan for the SMP service lists the SMP device, once, with its name")
    func crowdedScan() async throws {
        let clock = VirtualRuntime.currentClock
        let device = LEAddress("C0:5A:5A:5A:5A:01", kind: .random)!
        let controller = Self.crowdedController(clock: clock, device: device)
        let host = try await Self.startHost(controller, clock: clock)
        let results = try await host.scan(for: .seconds(2), service: Self.smp)
        #expect(results.map(\.address) == [device])
        #expect(results.first?.name == "smp-dev")
        controller.transport.end(reason: "the test ended")
        await host.close()
    }

    @Test("with 5000 other advertisers before it, a device asked for by name (its name in the scan response) is found")
    func crowdedFindByName() async throws {
        let clock = VirtualRuntime.currentClock
        let device = LEAddress("C0:5A:5A:5A:5A:02", kind: .random)!
        let controller = Self.crowdedController(clock: clock, device: device)
        let host = try await Self.startHost(controller, clock: clock)
        let found = try await host.find(service: nil, within: .seconds(2)) { $0.name == "smp-dev" }
        #expect(found?.address == device)
        controller.transport.end(reason: "the test ended")
        await host.close()
    }
}
