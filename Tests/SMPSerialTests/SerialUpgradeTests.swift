import Foundation
import McuBoot
import McuMgr
import SMP
import SMPSerial
import SMPSimulator
import SMPTestTraits
import Testing

import Glibc

/// Whole firmware upgrades through our serial transport, a real pty and the simulator.
@Suite("Firmware upgrade over serial", .scaledTimeLimit(minutes: 5))
struct SerialUpgradeTests {
    private func slot(_ device: SimulatedDevice, image: Int = 0, slot: Int) async -> SlotState? {
        await device.slotStates().first { $0.image == image && $0.slot == slot }
    }

    private static func configuration(mode: FirmwareUpgradeMode = .testAndConfirm) -> FirmwareUpgradeConfiguration {
        FirmwareUpgradeConfiguration(mode: mode, resetTimeout: .seconds(30), chunkTimeout: .seconds(3))
    }

    @Test("test-and-confirm of a 220 KiB image with console noise: the new image runs, confirmed, byte-identical",
          arguments: [(127, 256), (512, nil)] as [(Int, Int?)])
    func testAndConfirm(lineLength: Int, packetSize: Int?) async throws {
        let device = try await SerialFixture.device()
        let image = try SerialFixture.image(size: 220 * 1024, version: "2.1.0")
        #expect(image.bytes.count >= 200 * 1024)
        let options = SimulatorSerialServer.Options(lineLength: lineLength, consoleNoise: true, noiseSeed: UInt64(lineLength))
        try await SerialFixture.serving(device, options: options) { server in
            let (transport, client) = try await SerialFixture.client(path: server.path, lineLength: lineLength, packetSize: packetSize)
            let report = try await FirmwareUpgradeManager(client: client, logger: SerialFixture.quiet).upgrade(
                images: [FirmwareUpgradeImage(image: image)], configuration: Self.configuration())
            let primary = try #require(await slot(device, slot: 0))
            #expect(primary.hash == image.hash)
            #expect(primary.active && primary.confirmed)
            #expect(Array(await device.slotContents(image: 0, slot: 0).prefix(image.bytes.count)) == image.bytes)
            #expect(report.uploadedImages == [0])
            #expect(report.resets == 1)
            #expect(await device.bootCount == 2)
            // Every upload request fitted the packet size (fixed, or what buf_size 2048 leaves beside
            // length and CRC), and the noise was skipped, not taken for frames.
            let uploads = await device.requestLog.filter { $0.group == 1 && $0.command == 1 }
            #expect(uploads.allSatisfy { $0.length + 8 <= packetSize ?? 2044 })
            await client.close()
            var dropped: [SerialDecodingError] = []
            var textLines = 0
            for await event in transport.console {
                switch event {
                case .text: textLines += 1
                case .dropped(let error): dropped.append(error)
                }
            }
            #expect(textLines > 0)
            #expect(dropped.isEmpty)
        }
    }

    @Test("the device is unplugged in the middle of the upload: the upgrade waits, reconnects and finishes byte-identical")
    func unplugMidUpload() async throws {
        let device = try await SerialFixture.device()
        let image = try SerialFixture.image(size: 200 * 1024, version: "3.0.0", seed: 9)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serial-unplug-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let link = directory.appendingPathComponent("ttyBOARD").path

        let first = try await SimulatorSerialServer.start(device: device)
        #expect(symlink(first.path, link) == 0)
        let (_, client) = try await SerialFixture.client(path: link, packetSize: 2044)
        let upgrade = try FirmwareUpgradeManager(client: client, logger: SerialFixture.quiet).start(
            images: [FirmwareUpgradeImage(image: image)], configuration: Self.configuration(mode: .uploadOnly))

        // Pull the plug once the device has taken a quarter of the image (or the upgrade ended early,
        // which fails below): the upgrade's own progress, however slowly a loaded machine gets there.
        for await event in upgrade.events {
            if case .uploadProgress(_, let progress) = event, progress.bytesSent >= image.bytes.count / 4 { break }
        }
        await first.close()
        unlink(link)
        try await Task.sleep(for: .milliseconds(300))
        let second = try await SimulatorSerialServer.start(device: device)
        #expect(symlink(second.path, link) == 0)

        do {
            _ = try await upgrade.result()
        } catch {
            await second.close()
            throw error
        }
        let secondary = try #require(await slot(device, slot: 1))
        #expect(secondary.hash == image.hash)
        #expect(Array(await device.slotContents(image: 0, slot: 1).prefix(image.bytes.count)) == image.bytes)
        let uploads = await device.requestLog.filter { $0.group == 1 && $0.command == 1 }
        #expect(uploads.contains { $0.transport == first.transport.rawValue })
        #expect(uploads.contains { $0.transport == second.transport.rawValue })
        // It resumed where the device was, not from the start: far fewer than two uploads' worth of requests.
        let perUpload = (image.bytes.count + 1900) / 1900
        #expect(uploads.count < perUpload * 3 / 2)
        await client.close()
        await second.close()
    }
}
