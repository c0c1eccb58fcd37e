import McuBoot
import McuMgr
import SMP
import SMPBLE
import SMPSimulator
import SMPTestTraits
import Testing

@Suite("Firmware upgrade and file download over BLE (socketpair)")
struct BLEUpgradeTests {
    /// Runs a test-and-confirm upgrade of the imgtool image and checks the slot byte for byte.
    private func upgrade(
        mtu: Int, reassembly: Bool, depth: Int?
    ) async throws -> (SimulatedDevice, FirmwareUpgradeReport) {
        let image = try await ImgtoolImage.shared.image()
        #expect(image.bytes.count >= 200 * 1024)
        let (device, peripheral, transport) = try await BLEFixtures.connected(
            gatt: GATTPeripheralConfiguration(maximumMTU: mtu, reassembly: reassembly), reassemblyBufferSize: reassembly ? 2048 : nil)
        let client = BLEFixtures.client(transport)
        return try await guarded(limit: .seconds(240), cleanup: { await client.close(); await peripheral.close() }) { () async throws in
            let report = try await FirmwareUpgradeManager(client: client, logger: BLEFixtures.quietLogger).upgrade(
                images: [FirmwareUpgradeImage(image: image)], configuration: BLEFixtures.upgrade(depth: depth))
            let primary = try #require(await device.slotStates().first { $0.image == 0 && $0.slot == 0 })
            #expect(primary.hash == image.hash)
            #expect(primary.active && primary.confirmed)
            #expect(Array(await device.slotContents(image: 0, slot: 0).prefix(image.bytes.count)) == image.bytes)
            #expect(report.resets == 1)
            // The reset dropped the link, and the upgrade connected again.
            #expect(peripheral.connectionCount >= 2)
            return (device, report)
        }
    }

    @Test("test-and-confirm of an imgtool image ≥ 200 KiB, pipeline depth 1 and 4", arguments: [1, 4])
    func testAndConfirm(depth: Int) async throws {
        let (device, _) = try await upgrade(mtu: 498, reassembly: true, depth: depth)
        if depth > 1 { #expect(await device.maximumRequestsInFlight > 1) }
    }

    @Test(
        "the upgrade completes byte-identical at MTU 23, 185, 247 and 498, with the device's reassembly on and off",
        arguments: [23, 185, 247, 498], [true, false])
    func mtuAndReassembly(mtu: Int, reassembly: Bool) async throws {
        if mtu == 23 && !reassembly {
            // One 20-byte write cannot hold the first upload request (its `sha` alone is 32 bytes):
            // the upgrade must refuse at once instead of sending anything it cannot.
            await #expect(throws: FirmwareUpgradeError.self) { try await upgrade(mtu: mtu, reassembly: reassembly, depth: 2) }
            return
        }
        let (device, _) = try await upgrade(mtu: mtu, reassembly: reassembly, depth: 2)
        let uploads = await device.requestLog.filter { $0.group == 1 && $0.command == 1 }
        let largest = uploads.map { $0.length + 8 }.max() ?? 0
        // Without reassembly every request fits one write; with it, requests use the device's buffer.
        if reassembly { #expect(largest > mtu - 3) } else { #expect(largest <= mtu - 3) }
    }

    @Test("a 60 KiB file downloads over notifications at MTU 247")
    func fileDownload() async throws {
        let (device, peripheral, transport) = try await BLEFixtures.connected(gatt: GATTPeripheralConfiguration(maximumMTU: 247))
        let client = BLEFixtures.client(transport)
        try await guarded(cleanup: { await client.close(); await peripheral.close() }) { () async throws in
            let contents = BLEFixtures.payload(count: 60 * 1024, seed: 5)
            await device.writeFile(at: "/lfs1/log.bin", contents: contents)
            let downloaded = try await FileSystemManager(client: client).download(name: "/lfs1/log.bin")
            #expect(downloaded == contents)
        }
    }
}
