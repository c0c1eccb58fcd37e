import SMPTestTraits
import McuBoot
import McuMgr
import SMP
import SMPSimulator
import Testing

@Suite("ImageManager against the simulator", .virtualTime)
struct ImageManagerTests {
    /// Uploads `image` to `target` with the chunk primitive, always continuing from the device's offset.
    static func upload(_ image: McuBootImage, with manager: ImageManager, target: Int = 0, chunk: Int = 1024) async throws -> ImageUploadResponse {
        let bytes = image.bytes
        var answer = try await manager.upload(
            offset: 0, data: Array(bytes.prefix(chunk)), length: bytes.count, sha: image.fileSHA256, image: target, upgrade: false
        )
        var requests = 1
        while answer.offset < bytes.count {
            let end = min(bytes.count, answer.offset + chunk)
            answer = try await manager.upload(offset: answer.offset, data: Array(bytes[answer.offset..<end]))
            requests += 1
            guard requests < 10_000 else { throw SMPError.invalidResponse("upload does not progress") }
        }
        return answer
    }

    @Test func listShowsTheRunningImageInSlot0() async throws {
        try await ManagerHarness.with { h async throws in
            let running = try await h.install(version: ImageVersion(1, 2, 3))
            let slots = try await h.image.list()
            #expect(slots.count == 1)
            let slot = try #require(slots.first)
            #expect(slot.image == 0)
            #expect(slot.slot == 0)
            #expect(slot.version == "1.2.3")
            #expect(slot.hash == running.hash)
            #expect(slot.hash.count == 32)
            #expect(slot.active && slot.confirmed && slot.bootable)
            #expect(!slot.pending && !slot.permanent)
        }
    }

    @Test func listOfASingleImageDeviceReadsImage0() async throws {
        try await ManagerHarness.with({ $0.imageCount = 1 }) { h async throws in
            try await h.install(version: ImageVersion(2, 0, 0, build: 7))
            let slots = try await h.image.list()
            #expect(slots.map(\.image) == [0])
            #expect(slots.first?.version == "2.0.0.7")
        }
    }

    @Test func uploadTestResetConfirm() async throws {
        try await ManagerHarness.with { h async throws in
            let old = try await h.install(version: ImageVersion(1, 0, 0))
            let new = try McuBootImage.make(version: ImageVersion(1, 1, 0), payloadSize: 20_000, seed: 42)

            let last = try await Self.upload(new, with: h.image)
            #expect(last.offset == new.bytes.count)
            #expect(last.match == true)
            #expect(await h.device.slotContents(image: 0, slot: 1).prefix(new.bytes.count) == new.bytes[...])

            var slots = try await h.image.list()
            let uploaded = try #require(slots.first { $0.slot == 1 })
            #expect(uploaded.hash == new.hash)
            #expect(uploaded.version == "1.1.0")
            #expect(!uploaded.pending && !uploaded.confirmed && !uploaded.active)

            slots = try await h.image.test(hash: new.hash)
            #expect(slots.first { $0.slot == 1 }?.pending == true)
            #expect(slots.first { $0.slot == 1 }?.permanent == false)

            try await h.os.reset()
            try await h.waitForBoot(2)
            slots = try await h.image.list()
            let running = try #require(slots.first { $0.slot == 0 })
            #expect(running.hash == new.hash)
            #expect(running.active && !running.confirmed)
            #expect(slots.first { $0.slot == 1 }?.hash == old.hash)
            #expect(slots.first { $0.slot == 1 }?.confirmed == true)

            slots = try await h.image.confirm()
            #expect(slots.first { $0.slot == 0 }?.confirmed == true)
            #expect(slots.first { $0.slot == 1 }?.confirmed == false)
        }
    }

    @Test func confirmWithAHashMakesTheUploadPermanent() async throws {
        try await ManagerHarness.with { h async throws in
            try await h.install(version: ImageVersion(1, 0, 0))
            let new = try McuBootImage.make(version: ImageVersion(1, 0, 1), payloadSize: 3000, seed: 1)
            _ = try await Self.upload(new, with: h.image)
            let slots = try await h.image.confirm(hash: new.hash)
            let secondary = try #require(slots.first { $0.slot == 1 })
            #expect(secondary.pending && secondary.permanent)
        }
    }

    @Test func uploadToTheSecondImage() async throws {
        try await ManagerHarness.with { h async throws in
            try await h.install(version: ImageVersion(1, 0, 0), image: 0)
            try await h.install(version: ImageVersion(5, 0, 0), seed: 9, image: 1)
            let net = try McuBootImage.make(version: ImageVersion(5, 1, 0), payloadSize: 5000, seed: 2)
            _ = try await Self.upload(net, with: h.image, target: 1)
            let slots = try await h.image.list()
            #expect(slots.contains { $0.image == 1 && $0.slot == 1 && $0.hash == net.hash })
            #expect(slots.filter { $0.image == 1 }.map(\.slot) == [0, 1])
        }
    }

    @Test func eraseRemovesTheSecondaryImage() async throws {
        try await ManagerHarness.with { h async throws in
            try await h.install(version: ImageVersion(1, 0, 0))
            try await h.install(version: ImageVersion(1, 0, 1), seed: 3, slot: 1)
            #expect(try await h.image.list().count == 2)
            try await h.image.erase()
            #expect(try await h.image.list().map(\.slot) == [0])

            try await h.install(version: ImageVersion(1, 0, 2), seed: 4, slot: 1)
            try await h.image.erase(slot: 1)
            #expect(try await h.image.list().map(\.slot) == [0])
            #expect(await h.device.slotContents(image: 0, slot: 1).allSatisfy { $0 == 0xff })
        }
    }

    @Test func erasingTheRunningSlotIsRefused() async throws {
        try await ManagerHarness.with { h async throws in
            try await h.install(version: ImageVersion(1, 0, 0))
            let error = await deviceError { try await h.image.erase(slot: 0) }
            #expect(error == .image(.noFreeSlot))
            #expect(error?.description.contains("IMG_MGMT_ERR_NO_FREE_SLOT") == true)
        }
    }

    @Test func slotInfoReportsTheSlotSizes() async throws {
        try await ManagerHarness.with({ $0.slotSize = 0x40000 }) { h async throws in
            let info = try await h.image.slotInfo()
            #expect(info.map(\.image) == [0, 1])
            for image in info {
                #expect(image.slots.map(\.slot) == [0, 1])
                #expect(image.slots.allSatisfy { $0.size == 0x40000 })
                #expect(image.slots.allSatisfy { $0.uploadImageID == nil })
            }
        }
    }
}

extension McuBootImage {
    /// A simulator-made image, parsed.
    static func make(version: ImageVersion, payloadSize: Int, seed: UInt64) throws -> McuBootImage {
        try McuBootImage(bytes: MCUbootImageMaker.make(version: version, payloadSize: payloadSize, seed: seed))
    }
}
