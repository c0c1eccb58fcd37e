import CBOR
import McuBoot
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// The MCUboot slot semantics of smp-reference §6.4/§6.5, through the image group.
@Suite("MCUboot rules", .virtualTime)
struct MCUbootRuleTests {
    let newImage = MCUbootImageMaker.make(version: ImageVersion(2, 0, 0), payloadSize: 20_000, seed: 7)
    var newHash: [UInt8] { SlotImageHash.of(newImage) }

    /// The flags of one slot as the device reports them in a state-read response.
    func flags(_ state: CBORValue, image: Int = 0, slot: Int) -> [String]? {
        guard let list = state["images"]?.arrayValue else { return nil }
        for entry in list where (entry["image"]?.intValue ?? 0) == image && entry["slot"]?.intValue == slot {
            return ["active", "confirmed", "pending", "permanent"].filter { entry[$0]?.boolValue == true }
        }
        return nil
    }

    func state(_ f: Fixture) async throws -> CBORValue { try await f.request(.read, .image, 0) }

    @Test("an upload lands in the secondary slot with no flags; its hash is the image's SHA-256 TLV")
    func uploadLandsInSecondary() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            let last = try await f.upload(newImage)
            #expect(last["match"]?.boolValue == true)
            #expect(await f.device.slotContents(image: 0, slot: 1) == newImage)
            let s = try await state(f)
            #expect(flags(s, slot: 0) == ["active", "confirmed"])
            #expect(flags(s, slot: 1) == [])
            let entry = s["images"]!.arrayValue!.first { $0["slot"]?.intValue == 1 }!
            #expect(entry["hash"]?.bytesValue == newHash)
            #expect(entry["version"]?.textValue == "2.0.0")
            #expect(entry["bootable"]?.boolValue == true)
        }
    }

    @Test("test marks pending; reset swaps; the old image waits confirmed in slot 1")
    func testThenResetSwaps() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            try await f.upload(newImage)
            let afterTest = try await f.setState(hash: newHash, confirm: false)
            #expect(flags(afterTest, slot: 1) == ["pending"])
            #expect(await f.device.swapType(image: 0) == .test)
            try await f.resetAndWait()
            let s = try await state(f)
            #expect(flags(s, slot: 0) == ["active"])
            #expect(flags(s, slot: 1) == ["confirmed"])
            #expect(await f.device.slotContents(image: 0, slot: 0) == newImage)
            #expect(await f.device.swapType(image: 0) == .revert)
        }
    }

    @Test("an image booted for test and not confirmed is reverted at the next reset")
    func unconfirmedTestReverts() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            try await f.upload(newImage)
            try await f.setState(hash: newHash, confirm: false)
            try await f.resetAndWait()
            try await f.resetAndWait()
            let s = try await state(f)
            let primary = s["images"]!.arrayValue!.first { $0["slot"]?.intValue == 0 && ($0["image"]?.intValue ?? 0) == 0 }!
            #expect(primary["hash"]?.bytesValue == SlotImageHash.of(f.runningImages[0]))
            #expect(flags(s, slot: 0) == ["active", "confirmed"])
            #expect(flags(s, slot: 1) == [])
            #expect(await f.device.slotContents(image: 0, slot: 1) == newImage)
            #expect(await f.device.logMessages.contains { $0.contains("reverted") })
        }
    }

    @Test("confirming the running test image (no hash, or its hash) makes it permanent")
    func confirmMakesPermanent() async throws {
        for withHash in [false, true] {
            let f = await Fixture.make()
            try await f.upload(newImage)
            try await f.setState(hash: newHash, confirm: false)
            try await f.resetAndWait()
            let confirmed = try await f.setState(hash: withHash ? newHash : nil, confirm: true)
            #expect(flags(confirmed, slot: 0) == ["active", "confirmed"])
            #expect(flags(confirmed, slot: 1) == [])
            try await f.resetAndWait()
            #expect(await f.device.slotContents(image: 0, slot: 0) == newImage)
            await f.close()
        }
    }

    @Test("confirm: true with the secondary's hash marks pending permanent; reset makes it active and confirmed")
    func permanentUpgrade() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            try await f.upload(newImage)
            let s = try await f.setState(hash: newHash, confirm: true)
            #expect(flags(s, slot: 1) == ["pending", "permanent"])
            try await f.resetAndWait()
            let after = try await state(f)
            #expect(flags(after, slot: 0) == ["active", "confirmed"])
            #expect(flags(after, slot: 1) == [])
            try await f.resetAndWait()
            #expect(await f.device.slotContents(image: 0, slot: 0) == newImage)
        }
    }

    @Test("uploading while slot 1 holds a pending image is NO_FREE_SLOT (v1: EBADSTATE)")
    func uploadWhilePending() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            try await f.upload(newImage)
            try await f.setState(hash: newHash, confirm: false)
            let other = MCUbootImageMaker.make(version: ImageVersion(3, 0, 0), payloadSize: 5000)
            #expect(try await deviceError { try await f.upload(other) } == .image(.noFreeSlot))
            await f.client.setVersion(.v1)
            #expect(try await deviceError { try await f.upload(other) } == .status(.badState, reason: nil))
            // Erasing the pending slot is refused too.
            let erase = try await f.error(.write, .image, 5, .textMap(["slot": .int(1)]))
            #expect(erase == .status(.badState, reason: nil))
        }
    }

    @Test("uploading while a test image runs unconfirmed is NO_FREE_SLOT: slot 1 holds the way back")
    func uploadWhileReverting() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            try await f.upload(newImage)
            try await f.setState(hash: newHash, confirm: false)
            try await f.resetAndWait()
            let other = MCUbootImageMaker.make(version: ImageVersion(3, 0, 0), payloadSize: 5000)
            #expect(try await deviceError { try await f.upload(other) } == .image(.noFreeSlot))
        }
    }

    @Test("state write refusals: unknown hash, bad hash, test without hash, test of the active slot, already pending")
    func stateWriteRefusals() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            let unknown = [UInt8](repeating: 0xab, count: 32)
            #expect(try await f.error(.write, .image, 0, .textMap(["hash": .bytes(unknown)])) == .image(.hashNotFound))
            #expect(try await f.error(.write, .image, 0, .textMap(["hash": .bytes([1, 2, 3])])) == .image(.invalidHash))
            #expect(try await f.error(.write, .image, 0, .textMap(["confirm": .bool(false)])) == .image(.invalidHash))
            let running = SlotImageHash.of(f.runningImages[0])
            #expect(try await f.error(.write, .image, 0, .textMap(["hash": .bytes(running)])) == .image(.imageSettingTestToActiveDenied))
            try await f.upload(newImage)
            try await f.setState(hash: newHash, confirm: false)
            // The same test again is a no-op; a confirm while a test is pending is refused.
            try await f.setState(hash: newHash, confirm: false)
            #expect(try await f.error(.write, .image, 0, .textMap(["confirm": .bool(true)])) == .image(.imageAlreadyPending))
            #expect(try await f.error(.write, .image, 0, .textMap(["hash": .bytes(newHash), "confirm": .bool(true)])) == .image(.imageAlreadyPending))
        }
    }

    @Test("downgrade with upgrade: true is CURRENT_VERSION_IS_NEWER before anything is written")
    func downgradeRefused() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            let older = MCUbootImageMaker.make(version: ImageVersion(0, 9, 0), payloadSize: 4000)
            let same = MCUbootImageMaker.make(version: ImageVersion(1, 0, 0, build: 9), payloadSize: 4000)
            for image in [older, same] {
                #expect(try await deviceError { try await f.upload(image, upgrade: true) } == .image(.currentVersionIsNewer))
            }
            #expect(await f.device.slotContents(image: 0, slot: 1).isEmpty)
            try await f.upload(older, upgrade: false)
            try await f.upload(newImage, upgrade: true)
        }
    }

    @Test("no-downgrade MCUboot refuses to boot an older image and says so in bootloader info")
    func noDowngradeMode() async throws {
        var c = DeviceConfiguration.testing
        c.preventsDowngrade = true
        try await withClosing(await Fixture.make(configuration: c), close: { await $0.close() }) { (f) async throws in
            let mode = try await f.request(.read, .os, 8, .textMap(["query": .text("mode")]))
            #expect(mode["mode"]?.intValue == 3)
            #expect(mode["no-downgrade"]?.boolValue == true)
            let older = MCUbootImageMaker.make(version: ImageVersion(0, 5, 0), payloadSize: 4000)
            try await f.upload(older)
            try await f.setState(hash: SlotImageHash.of(older), confirm: false)
            try await f.resetAndWait()
            let s = try await state(f)
            #expect(s["images"]!.arrayValue!.filter { ($0["image"]?.intValue ?? 0) == 0 }.count == 1)
            #expect(flags(s, slot: 0) == ["active", "confirmed"])
            #expect(await f.device.slotContents(image: 0, slot: 0) == f.runningImages[0])
            // Without the mode, bootloader info leaves `no-downgrade` out.
            let plain = await Fixture.make()
            let plainMode = try await plain.request(.read, .os, 8, .textMap(["query": .text("mode")]))
            #expect(plainMode["no-downgrade"] == nil)
            await plain.close()
        }
    }

    @Test("an image whose hash TLV does not match its bytes is refused by MCUboot at boot")
    func corruptImageRejected() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            var corrupt = newImage
            corrupt[600] ^= 0xff
            try await f.upload(corrupt)
            try await f.setState(hash: newHash, confirm: false)
            try await f.resetAndWait()
            #expect(await f.device.slotContents(image: 0, slot: 0) == f.runningImages[0])
            #expect(await f.device.slotContents(image: 0, slot: 1).isEmpty)
        }
    }

    @Test("multi-image: image 1 upgrades independently; its entries carry `image`")
    func secondImage() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            let net = MCUbootImageMaker.make(version: ImageVersion(1, 1, 0), payloadSize: 9000, seed: 99)
            try await f.upload(net, image: 1)
            #expect(await f.device.slotContents(image: 1, slot: 1) == net)
            #expect(await f.device.slotContents(image: 0, slot: 1).isEmpty)
            let s = try await f.setState(hash: SlotImageHash.of(net), confirm: false)
            #expect(flags(s, image: 1, slot: 1) == ["pending"])
            #expect(flags(s, image: 0, slot: 1) == nil)
            try await f.resetAndWait()
            let after = try await state(f)
            #expect(flags(after, image: 1, slot: 0) == ["active"])
            #expect(flags(after, image: 0, slot: 0) == ["active", "confirmed"])
            // Confirming image 1 takes its hash; a hash-less confirm only confirms image 0.
            try await f.setState(hash: SlotImageHash.of(net), confirm: true)
            #expect(flags(try await state(f), image: 1, slot: 0) == ["active", "confirmed"])
            // With a single image, entries have no `image` key.
            var single = DeviceConfiguration.testing
            single.imageCount = 1
            let one = await Fixture.make(configuration: single)
            let list = try await one.request(.read, .image, 0)
            #expect(list["images"]?.arrayValue?.allSatisfy { $0["image"] == nil } == true)
            #expect(list["splitStatus"]?.intValue == 0)
            await one.close()
        }
    }

    @Test("confirming another image is IMAGE_CONFIRMATION_DENIED when the device does not allow it")
    func confirmOtherImageDenied() async throws {
        var c = DeviceConfiguration.testing
        c.allowsConfirmingOtherImages = false
        try await withClosing(await Fixture.make(configuration: c), close: { await $0.close() }) { (f) async throws in
            let net = MCUbootImageMaker.make(version: ImageVersion(1, 1, 0), payloadSize: 9000, seed: 99)
            try await f.upload(net, image: 1)
            let e = try await f.error(.write, .image, 0, .textMap(["hash": .bytes(SlotImageHash.of(net)), "confirm": .bool(true)]))
            #expect(e == .image(.imageConfirmationDenied))
        }
    }

    @Test("erase: default slot 1, refused for the active slot, INVALID_SLOT past the last slot")
    func erase() async throws {
        try await withClosing(await Fixture.make(), close: { await $0.close() }) { (f) async throws in
            try await f.upload(newImage)
            try await f.request(.write, .image, 5)
            #expect(await f.device.slotContents(image: 0, slot: 1).isEmpty)
            #expect(try await f.error(.write, .image, 5, .textMap(["slot": .int(0)])) == .image(.noFreeSlot))
            #expect(try await f.error(.write, .image, 5, .textMap(["slot": .int(4)])) == .image(.invalidSlot))
            try await f.request(.write, .image, 5, .textMap(["slot": .int(3)]))
        }
    }
}

/// The SHA-256 TLV of an image, read with the client's McuBoot parser (a second implementation).
enum SlotImageHash {
    static func of(_ image: [UInt8]) -> [UInt8] {
        (try? McuBootImage(bytes: image).hash) ?? []
    }
}
