import McuBoot
import McuMgr
import SMP
import SMPBLE
@testable import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

@Suite("BLE link model")
struct LinkModelTests {
    /// A model whose connection events never run out of packets: the link's own ceiling.
    private func unbounded(_ phy: BLELinkModel.PHY, dle: Bool) -> BLELinkModel {
        BLELinkModel(phy: phy, dataLengthExtension: dle, connectionInterval: .seconds(1), packetsPerConnectionEvent: 100_000, deviceBuffers: 100_000)
    }

    @Test("ceilings match the air-time arithmetic of interop-notes: 29.6, 98.9 and 175 kB/s")
    func ceilings() {
        let cases: [(BLELinkModel, Int, Double)] = [
            (unbounded(.le1M, dle: false), 23, 29_600), (unbounded(.le1M, dle: true), 247, 98_900), (unbounded(.le2M, dle: true), 247, 175_000),
        ]
        for (model, mtu, expected) in cases {
            let limit = model.throughputLimit(mtu: mtu)
            #expect(abs(limit - expected) / expected < 0.01, "\(model) at MTU \(mtu): \(limit) B/s")
        }
        let fast = BLELinkModel.fast
        #expect(fast.packetTime == .microseconds(1392))
        #expect(fast.packetsPerEvent == 5)  // 7.5 ms holds 5 exchanges of 1.392 ms, below the 6 buffers
        #expect(fast.linkLayerPackets(forATTPDU: 498) == 2)
        #expect(fast.linkLayerPackets(forATTPDU: 499) == 3)
        #expect(BLELinkModel().linkLayerPackets(forATTPDU: 23) == 1)
        #expect(abs(fast.throughputLimit(mtu: 498) - 495.0 * 5 / 0.0075 / 2) < 1)
    }

    @Test("packets chain within an event while queued, wait for the next event when full or after the link ran dry")
    func schedule() async throws {
        let runtime = VirtualRuntime()
        let ends = try await runtime.run { clock async throws -> [Duration] in
            let pacer = BLELinkPacer(model: .fast, clock: clock)
            let zero = clock.now
            var ends: [Duration] = []
            // Queued at time zero: 2 + 2 packets fit the first event, the next 2 spill over (5 per event).
            for _ in 0..<3 { ends.append(await pacer.book(packets: 2, availableAt: zero) - zero) }
            // Ready only after the second event's packets ended: the event is over, wait for the third.
            ends.append(await pacer.book(packets: 1, availableAt: zero + .milliseconds(9)) - zero)
            return ends
        }
        let slot = BLELinkModel.fast.packetTime
        let interval = Duration.microseconds(7500)
        #expect(ends == [slot * 2, slot * 4, interval + slot * 1, interval * 2 + slot])
    }

    @Test("throughput is simulated by time: 20 writes of a 498-byte MTU take exactly 8 connection events (virtual time)")
    func pacedByTime() async throws {
        let runtime = VirtualRuntime()
        _ = try await runtime.run { clock async throws -> Int in
            let pacer = BLELinkPacer(model: .fast, clock: clock)
            let zero = clock.now
            for _ in 0..<20 { await pacer.transmit(attPDUSize: 498, availableAt: zero) }
            return 0
        }
        // 40 link-layer packets, 5 per event: 7 full intervals, then 5 packets of the eighth event.
        #expect(runtime.elapsed == .microseconds(7500) * 7 + BLELinkModel.fast.packetTime * 5)
    }

    @Test("an upgrade completes over a paced 2M/DLE link (outcome only; timing lives in Benchmarks/)")
    func upgradeOverPacedLink() async throws {
        var builder = McuBootImageBuilder(payload: BLEFixtures.payload(count: 48 * 1024, seed: 9), version: McuBootVersion(string: "3.0.0")!)
        builder.headerSize = 0x200
        let image = try builder.buildImage()
        let (device, peripheral, transport) = try await BLEFixtures.connected(
            gatt: GATTPeripheralConfiguration(maximumMTU: 498, reassembly: true, link: .fast), reassemblyBufferSize: 2048)
        let client = BLEFixtures.client(transport)
        try await guarded(limit: .seconds(240), cleanup: { await client.close(); await peripheral.close() }) { () async throws in
            let report = try await FirmwareUpgradeManager(client: client, logger: BLEFixtures.quietLogger).upgrade(
                images: [FirmwareUpgradeImage(image: image)], configuration: BLEFixtures.upgrade(depth: 3))
            #expect(report.resets == 1)
            #expect(Array(await device.slotContents(image: 0, slot: 0).prefix(image.bytes.count)) == image.bytes)
        }
    }
}
