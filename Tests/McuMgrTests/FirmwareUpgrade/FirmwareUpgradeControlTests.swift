import SMPTestTraits
import McuBoot
import McuMgr
import SMP
import SMPSimulator
import Testing

@Suite("Firmware upgrade: validate shortcuts, control, and bad input", .virtualTime)
struct FirmwareUpgradeControlTests {
    @Test("an image already pending in slot 1 is not uploaded again")
    func pendingImageSkipsUpload() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let image = try UpgradeFixtures.image()
        let manager = FirmwareUpgradeManager(client: client)
        _ = try await manager.upgrade(images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration(mode: .uploadOnly))
        _ = try await ImageManager(client: client).test(hash: image.hash)
        let uploadsBefore = await UpgradeFixtures.uploadRequests(device).count

        let report = try await manager.upgrade(images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration())
        #expect(report.uploadedImages.isEmpty)
        #expect(await UpgradeFixtures.uploadRequests(device).count == uploadsBefore)
        let primary = await device.slotStates().first { $0.image == 0 && $0.slot == 0 }
        #expect(primary?.hash == image.hash)
        #expect(primary?.confirmed == true)
    }

    @Test("an image already running and confirmed succeeds at once: no upload, no reset")
    func confirmedImageSucceedsAtOnce() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let image = try UpgradeFixtures.image()
        let manager = FirmwareUpgradeManager(client: client)
        _ = try await manager.upgrade(images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration())
        let boots = await device.bootCount
        let requests = await device.requestLog.count

        let report = try await manager.upgrade(images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration())
        #expect(report.uploadedImages.isEmpty)
        #expect(report.resets == 0)
        #expect(await device.bootCount == boots)
        let newRequests = await device.requestLog.dropFirst(requests)
        #expect(!newRequests.contains { $0.group == 1 && $0.command == 1 })
    }

    @Test("a running test image that is not confirmed yet is confirmed without another reset")
    func runningUnconfirmedIsConfirmed() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let image = try UpgradeFixtures.image()
        let manager = FirmwareUpgradeManager(client: client)
        _ = try await manager.upgrade(images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration(mode: .testOnly))
        let boots = await device.bootCount
        let report = try await manager.upgrade(images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration())
        #expect(report.resets == 0)
        #expect(await device.bootCount == boots)
        let primary = await device.slotStates().first { $0.image == 0 && $0.slot == 0 }
        #expect(primary?.hash == image.hash && primary?.confirmed == true)
    }

    @Test("pause holds the upload, resume finishes it")
    func pauseAndResume() async throws {
        let link = LinkConfiguration(latency: .milliseconds(3))
        let (device, client) = try await UpgradeFixtures.device(link: link)
        let image = try UpgradeFixtures.image(size: 96 * 1024)
        let upgrade = try FirmwareUpgradeManager(client: client).start(
            images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration(mode: .uploadOnly, depth: 2)
        )
        var paused = false
        var progressWhilePaused: [Int] = []
        for await event in upgrade.events {
            guard case .uploadProgress(_, let progress) = event else { continue }
            if !paused && progress.fraction > 0.2 {
                upgrade.pause()
                paused = true
                try await client.clock.sleep(for: .milliseconds(200))
                let held = await UpgradeFixtures.uploadRequests(device).count
                try await client.clock.sleep(for: .milliseconds(300))
                progressWhilePaused.append(await UpgradeFixtures.uploadRequests(device).count - held)
                upgrade.resume()
            }
        }
        _ = try await upgrade.result()
        #expect(paused)
        #expect(progressWhilePaused == [0], "chunks were sent while paused")
        let contents = await device.slotContents(image: 0, slot: 1)
        #expect(Array(contents.prefix(image.bytes.count)) == image.bytes)
    }

    @Test("cancel stops the upgrade with reason cancelled; the next upgrade resumes and succeeds")
    func cancelLeavesDeviceConsistent() async throws {
        let link = LinkConfiguration(latency: .milliseconds(2))
        let (device, client) = try await UpgradeFixtures.device(link: link)
        let image = try UpgradeFixtures.image(size: 96 * 1024)
        let manager = FirmwareUpgradeManager(client: client)
        let upgrade = try manager.start(images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration(depth: 2))
        for await event in upgrade.events {
            if case .uploadProgress(_, let progress) = event, progress.fraction > 0.4 {
                upgrade.cancel()
                break
            }
        }
        do {
            _ = try await upgrade.result()
            Issue.record("a cancelled upgrade succeeded")
        } catch {
            guard case .cancelled = error.reason else {
                Issue.record("expected reason cancelled, got \(error)")
                return
            }
            #expect(error.state == .upload)
        }
        let before = await UpgradeFixtures.uploadRequests(device).reduce(0) { $0 + $1.length }

        let report = try await manager.upgrade(images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration(depth: 2))
        #expect(report.uploadedImages == [0])
        let after = await UpgradeFixtures.uploadRequests(device).reduce(0) { $0 + $1.length }
        // The second run resumed: it sent well under the whole image again.
        #expect(after - before < image.bytes.count * 8 / 10)
        let primary = await device.slotStates().first { $0.image == 0 && $0.slot == 0 }
        #expect(primary?.hash == image.hash && primary?.confirmed == true)
    }

    @Test("a file that is not an MCUboot image, a truncated image, and a hash mismatch are refused before anything is sent")
    func badImagesRefusedBeforeSending() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let good = try UpgradeFixtures.image()
        var flipped = good.bytes
        flipped[0x300] ^= 0x01
        // Each case names the McuBoot error it must be refused with.
        let cases: [(String, [UInt8], (McuBootError) -> Bool)] = [
            ("not an image", Array("this is a text file, not firmware".utf8), { if case .badMagic = $0 { true } else { false } }),
            ("truncated", Array(good.bytes.prefix(good.bytes.count / 2)), { if case .imageSizePastEnd = $0 { true } else { false } }),
            ("flipped byte", flipped, { if case .hashMismatch = $0 { true } else { false } }),
        ]
        for (name, bytes, expected) in cases {
            do {
                let image = try FirmwareUpgradeImage(bytes: bytes)
                _ = try FirmwareUpgradeManager(client: client).start(images: [image], configuration: UpgradeFixtures.configuration())
                Issue.record("\(name): accepted")
            } catch let error as McuBootError {
                #expect(expected(error), "\(name): \(error)")
            } catch let error as FirmwareUpgradeError {
                guard case .invalidImage(_, let cause) = error.reason else {
                    Issue.record("\(name): unexpected \(error)")
                    continue
                }
                #expect(expected(cause), "\(name): \(cause)")
                #expect(error.state == .none)
            }
        }
        #expect(await device.requestLog.isEmpty)
    }

    @Test("invalid configurations are refused at start", arguments: [
        FirmwareUpgradeConfiguration(pipelineDepth: 0),
        FirmwareUpgradeConfiguration(byteAlignment: 3),
        FirmwareUpgradeConfiguration(reassemblyBufferSize: 10),
    ])
    func invalidConfiguration(_ configuration: FirmwareUpgradeConfiguration) async throws {
        let (_, client) = try await UpgradeFixtures.device()
        let image = try UpgradeFixtures.image()
        #expect(throws: FirmwareUpgradeError.self) {
            _ = try FirmwareUpgradeManager(client: client).start(images: [FirmwareUpgradeImage(image: image)], configuration: configuration)
        }
    }

    @Test("an image index the device lacks is refused before uploading")
    func unknownImageIndex() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let image = try UpgradeFixtures.image()
        do {
            _ = try await FirmwareUpgradeManager(client: client).upgrade(
                images: [FirmwareUpgradeImage(index: 5, image: image)], configuration: UpgradeFixtures.configuration()
            )
            Issue.record("image 5 accepted")
        } catch {
            #expect(error.state == .validate)
            #expect(error.description.contains("no image 5"))
        }
        #expect(await UpgradeFixtures.uploadRequests(device).isEmpty)
    }

    @Test("no-downgrade: an older image is refused in validate with the versions named")
    func downgradeRefused() async throws {
        let (device, client) = try await UpgradeFixtures.device()
        let old = try UpgradeFixtures.image(version: "0.9.0")
        var configuration = UpgradeFixtures.configuration()
        configuration.rejectsDowngrade = true
        do {
            _ = try await FirmwareUpgradeManager(client: client).upgrade(images: [FirmwareUpgradeImage(image: old)], configuration: configuration)
            Issue.record("downgrade accepted")
        } catch {
            guard case .downgradeRefused(_, let running, let new) = error.reason else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(running == "1.0.0" && new == "0.9.0")
        }
        #expect(await UpgradeFixtures.uploadRequests(device).isEmpty)
    }
}
