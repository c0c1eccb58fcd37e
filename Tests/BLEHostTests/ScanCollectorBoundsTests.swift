import BLEHost
import GATT
import Testing

@Suite("The scan table under a crowd (issue 33, defect 2)")
struct ScanCollectorBoundsTests {
    static let smp = CrowdedScanTests.smp

    static func report(_ n: Int, services: [BluetoothUUID], name: String? = nil, type: AdvertisingReport.EventType = .connectable) -> AdvertisingReport {
        AdvertisingReport(
            eventType: type, address: ScriptedController.address(n), data: AdvertisingData.advertisement(services: services, name: name), rssi: -50)
    }

    /// A 128-bit UUID numbered `n`.
    static func uuid(_ n: Int) -> BluetoothUUID {
        BluetoothUUID(littleEndian: [UInt8](repeating: 0x5A, count: 12) + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), 0x01])!
    }

    @Test("5000 advertisers without the SMP service do not crowd out the one with it, however late it comes")
    func othersNeverCrowdOut() {
        var collector = ScanCollector(service: Self.smp)
        for n in 0..<5000 { collector.add(Self.report(n, services: [BluetoothUUID(0x180D)])) }
        collector.add(Self.report(9999, services: [Self.smp], name: "smp-dev"))
        #expect(collector.results.map(\.name) == ["smp-dev"])
    }

    @Test("a device whose service comes in its scan response after 2000 others is still a result")
    func serviceInScanResponse() {
        var collector = ScanCollector(service: Self.smp)
        collector.add(Self.report(9999, services: [], name: "smp-dev"))
        for n in 0..<500 { collector.add(Self.report(n, services: [])) }
        collector.add(Self.report(9999, services: [Self.smp], type: .scanResponse))
        for n in 500..<2000 { collector.add(Self.report(n, services: [])) }
        #expect(collector.results.map(\.name) == ["smp-dev"])
        #expect(collector.results.first?.connectable == true)
    }

    @Test("results keep the order devices were first seen; matching devices are kept up to the capacity")
    func orderAndCapacity() {
        var collector = ScanCollector(service: Self.smp)
        collector.add(Self.report(1, services: [], name: "first"))
        collector.add(Self.report(2, services: [Self.smp], name: "second"))
        collector.add(Self.report(1, services: [Self.smp], type: .scanResponse))
        #expect(collector.results.map(\.name) == ["first", "second"])
        var crowded = ScanCollector(service: Self.smp)
        for n in 0..<3000 { crowded.add(Self.report(n, services: [Self.smp])) }
        #expect(crowded.results.count == ScanCollector.capacity)
        #expect(crowded.results.first?.address == ScriptedController.address(0))
    }

    @Test("one address listing a new 128-bit UUID in each of 10 000 advertisements keeps a bounded list, and the service asked for still fits")
    func serviceListBounded() {
        var collector = ScanCollector(service: nil)
        for n in 0..<10_000 {
            collector.add(Self.report(1, services: [Self.uuid(n)]))
        }
        #expect((collector.results.first?.services.count ?? 0) <= 32)
        var asking = ScanCollector(service: Self.smp)
        for n in 0..<100 {
            asking.add(Self.report(1, services: [Self.uuid(n)]))
        }
        asking.add(Self.report(1, services: [Self.smp]))
        #expect(asking.results.count == 1)
    }
}
