import CBOR
import SMP
import SMPTestSupport
import SMPSimulator
import SMPTestTraits
import Testing

/// The MCUboot modes of the simulated device through the image and OS groups: image list, the
/// slot an upload lands in, test/confirm/erase, and which slot runs after a reset.
@Suite("Bootloader modes", .virtualTime)
struct BootloaderModeTests {
    let newImage = MCUbootImageMaker.make(version: ImageVersion(2, 0, 0), payloadSize: 5000, seed: 41)
    var newHash: [UInt8] { SlotImageHash.of(newImage) }

    func fixture(_ mode: MCUbootMode, _ change: (inout DeviceConfiguration) -> Void = { _ in }) async -> Fixture {
        var configuration = DeviceConfiguration.testing
        configuration.bootloaderMode = mode
        change(&configuration)
        return await Fixture.make(configuration: configuration)
    }

    /// Slot → flags of image 0, as the device lists them.
    func table(_ f: Fixture) async throws -> [Int: [String]] {
        table(try await f.request(.read, .image, 0))
    }

    /// Slot → flags of image 0 in a state response.
    func table(_ state: CBORValue) -> [Int: [String]] {
        var result: [Int: [String]] = [:]
        for entry in state["images"]?.arrayValue ?? [] where (entry["image"]?.intValue ?? 0) == 0 {
            guard let slot = entry["slot"]?.intValue else { continue }
            result[slot] = ["active", "confirmed", "pending", "permanent"].filter { entry[$0]?.boolValue == true }
        }
        return result
    }

    @Test("bootloader info reports each mode's number", arguments: MCUbootMode.allCases)
    func reportsMode(mode: MCUbootMode) async throws {
        try await withClosing(await fixture(mode), close: { await $0.close() }) { (f) async throws in
            let info = try await f.request(.read, .os, 8, .map([(key: .text("query"), value: .text("mode"))]))
            #expect(info["mode"]?.intValue == mode.rawValue)
            #expect(MCUbootMode(name: mode.name) == mode && MCUbootMode(name: String(mode.rawValue)) == mode)
        }
    }

    @Test("direct-XIP without revert: upload to the inactive slot, no state write, the higher version runs")
    func directXIP() async throws {
        try await withClosing(await fixture(.directXIP), close: { await $0.close() }) { (f) async throws in
            try await f.upload(newImage)
            #expect(await f.device.slotContents(image: 0, slot: 1) == newImage)
            #expect(try await table(f) == [0: ["active", "confirmed"], 1: ["pending", "permanent"]])
            #expect(try await deviceError { try await f.setState(hash: newHash, confirm: false) } == .status(.notSupported, reason: nil))
            try await f.resetAndWait()
            #expect(await f.device.activeSlot(image: 0) == 1)
            #expect(try await table(f) == [0: [], 1: ["active", "confirmed"]])
            // The next upload goes to slot 0, the one not running now; the running slot cannot be erased.
            let third = MCUbootImageMaker.make(version: ImageVersion(3, 0, 0), payloadSize: 4000, seed: 42)
            try await f.upload(third)
            #expect(await f.device.slotContents(image: 0, slot: 0) == third)
            #expect(try await f.error(.write, .image, 5, .map([(key: .text("slot"), value: .int(1))])) == .image(.noFreeSlot))
            #expect(await f.device.slotContents(image: 0, slot: 1) == newImage)
        }
    }

    @Test("direct-XIP without revert: an older image in the other slot is listed without flags and never runs")
    func directXIPOlderStaysIdle() async throws {
        try await withClosing(await fixture(.directXIP), close: { await $0.close() }) { (f) async throws in
            let older = MCUbootImageMaker.make(version: ImageVersion(0, 9, 0), payloadSize: 4000, seed: 43)
            try await f.upload(older)
            #expect(try await table(f) == [0: ["active", "confirmed"], 1: []])
            try await f.resetAndWait()
            #expect(await f.device.activeSlot(image: 0) == 0)
        }
    }

    @Test("direct-XIP with revert: test boots once, confirm keeps it, no confirm erases it")
    func directXIPWithRevert() async throws {
        for confirms in [true, false] {
            let f = await fixture(.directXIPWithRevert)
            try await f.upload(newImage)
            #expect(try await table(f) == [0: ["active", "confirmed"], 1: []])
            #expect(table(try await f.setState(hash: newHash, confirm: false)) == [0: ["active", "confirmed"], 1: ["pending"]])
            try await f.resetAndWait()
            #expect(await f.device.activeSlot(image: 0) == 1)
            #expect(try await table(f) == [0: ["confirmed"], 1: ["active"]])
            if confirms { try await f.setState(hash: nil, confirm: true) }
            try await f.resetAndWait()
            if confirms {
                #expect(await f.device.activeSlot(image: 0) == 1)
                #expect(try await table(f) == [0: [], 1: ["active", "confirmed"]])
            } else {
                #expect(await f.device.activeSlot(image: 0) == 0)
                #expect(try await table(f) == [0: ["active", "confirmed"]])
                #expect(await f.device.slotContents(image: 0, slot: 1).isEmpty)
            }
            await f.close()
        }
    }

    @Test("direct-XIP with revert: an image neither tested nor confirmed is erased at boot")
    func directXIPWithRevertErasesUnmarked() async throws {
        try await withClosing(await fixture(.directXIPWithRevert), close: { await $0.close() }) { (f) async throws in
            try await f.upload(newImage)
            try await f.resetAndWait()
            #expect(await f.device.activeSlot(image: 0) == 0)
            #expect(await f.device.slotContents(image: 0, slot: 1).isEmpty)
            #expect(try await table(f) == [0: ["active", "confirmed"]])
        }
    }

    @Test("overwrite-only: a tested image replaces the primary for good; nothing reverts")
    func overwriteOnly() async throws {
        try await withClosing(await fixture(.overwriteOnly), close: { await $0.close() }) { (f) async throws in
            try await f.upload(newImage)
            try await f.setState(hash: newHash, confirm: false)
            try await f.resetAndWait()
            #expect(await f.device.slotContents(image: 0, slot: 0) == newImage)
            #expect(try await table(f) == [0: ["active", "confirmed"]])
            try await f.resetAndWait()
            #expect(await f.device.slotContents(image: 0, slot: 0) == newImage)
        }
    }

    @Test("RAM load: the highest version runs after a reset; trailers play no part")
    func ramLoad() async throws {
        try await withClosing(await fixture(.ramLoad), close: { await $0.close() }) { (f) async throws in
            try await f.upload(newImage)
            #expect(try await table(f) == [0: ["active", "confirmed"], 1: ["pending", "permanent"]])
            try await f.resetAndWait()
            #expect(await f.device.activeSlot(image: 0) == 1)
        }
    }

    @Test("single-slot modes: one slot, nothing to upload into, no slot 1 to erase", arguments: [MCUbootMode.singleApplication, .firmwareLoader, .singleSlotRAMLoad])
    func singleSlot(mode: MCUbootMode) async throws {
        try await withClosing(await fixture(mode), close: { await $0.close() }) { (f) async throws in
            #expect(try await table(f) == [0: mode == .firmwareLoader ? ["active"] : ["active", "confirmed"]])
            #expect(try await deviceError { try await f.upload(newImage) } == .image(.noFreeSlot))
            #expect(try await f.error(.write, .image, 5, .map([(key: .text("slot"), value: .int(1))])) == .image(.invalidSlot))
        }
    }

    @Test("a foreign image marked for test holds slot 1: erase and upload refused, unless erasing pending slots is allowed")
    func foreignPendingHoldsTheSlot() async throws {
        for allowed in [false, true] {
            let f = await fixture(.swapUsingMove) { $0.allowsErasingPendingSlots = allowed }
            let foreign = MCUbootImageMaker.make(version: ImageVersion(1, 5, 0), payloadSize: 4000, seed: 44)
            await f.device.install(foreign, image: 0, slot: 1, mark: .test)
            #expect(try await table(f) == [0: ["active", "confirmed"], 1: ["pending"]])
            let erase = try await f.error(.write, .image, 5, .map([(key: .text("slot"), value: .int(1))]))
            #expect(erase == (allowed ? nil : .image(.noFreeSlot)))
            if allowed { #expect(try await table(f) == [0: ["active", "confirmed"]]) }
            let upload = try await deviceError { try await f.upload(newImage) }
            #expect(upload == (allowed ? nil : .image(.noFreeSlot)))
            await f.close()
        }
    }

    @Test("a confirmed image in slot 1 means the running image is on test: a reset reverts to it")
    func confirmedSecondaryReverts() async throws {
        try await withClosing(await fixture(.swapUsingMove), close: { await $0.close() }) { (f) async throws in
            let foreign = MCUbootImageMaker.make(version: ImageVersion(1, 5, 0), payloadSize: 4000, seed: 45)
            await f.device.install(foreign, image: 0, slot: 1, mark: .confirmed)
            #expect(try await table(f) == [0: ["active"], 1: ["confirmed"]])
            #expect(try await deviceError { try await f.upload(newImage) } == .image(.noFreeSlot))
            try await f.resetAndWait()
            #expect(await f.device.slotContents(image: 0, slot: 0) == foreign)
            #expect(try await table(f) == [0: ["active", "confirmed"], 1: []])
        }
    }

    @Test("busy: the first N image requests of the chosen commands are answered rc 10 and change nothing")
    func busyAnswers() async throws {
        var faults = FaultConfiguration()
        faults.busyImageRequests = 2
        faults.busyImageCommands = [0, 5]
        try await withClosing(await Fixture.make(configuration: .testing, faults: faults), close: { await $0.close() }) { (f) async throws in
            // The raw answer (the session itself would ask again after a busy answer).
            func rc(_ op: SMPOperation, _ command: UInt8) async throws -> Int? {
                let packet = try await f.client.transceive(op, group: .image, command: command, payload: [0xa0], retryPolicy: .resend)
                return try packet.decodedPayload()["rc"]?.intValue
            }
            // Other groups and commands pass untouched.
            #expect(try await f.request(.read, .os, 6)["buf_size"]?.intValue == DeviceConfiguration.testing.bufferSize)
            #expect(try await rc(.read, 0) == 10)
            #expect(try await rc(.write, 5) == 10)
            #expect(await f.device.slotContents(image: 0, slot: 0) == f.runningImages[0])
            #expect(try await rc(.read, 0) == nil)
            #expect(try await rc(.write, 5) == nil)
            // The session's own busy retry rides such answers out.
            var again = FaultConfiguration()
            again.busyImageRequests = 3
            await f.device.setFaults(again)
            #expect(try await f.error(.read, .image, 0) == nil)
            #expect(await f.device.requestLog.suffix(4).map(\.outcome) == [.status(10), .status(10), .status(10), .success])
        }
    }
}
