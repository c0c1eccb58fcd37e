import CBOR
import SMP

// The slot state machine with MCUboot's swaps: the uploaded image marked for test becomes
// pending, a reset swaps it in unconfirmed, a second reset without confirm reverts it; then the
// upload slot is erased and the device runs what it ran before.

extension ConformanceCheck {
    /// The swap checks and the erase that ends the image checks.
    static let imageSwap: [ConformanceCheck] = [
        ConformanceCheck(
            "image.test-pending", .image, access: .writesAndReset,
            expects: "marking the uploaded image for test (confirm false) lists its slot pending, not permanent",
            rationale: """
                state write {hash, confirm: false} writes the secondary trailer's magic without image_ok: MCUboot \
                swap type TEST, listed "pending" (img_mgmt_state_read, smp-reference §6.5). Test-and-confirm upgrades \
                start here (ours; Nordic's FirmwareUpgradeManager in its test-and-confirm mode; smpclient's docs advise \
                upgrade=False and confirming from the new application, SMPClient.upload). Needs --image: an image this \
                device boots, since the next checks reset into it.
                """, body: testPending),
        ConformanceCheck(
            "image.swap-after-reset", .image, access: .writesAndReset,
            expects: "after a reset the tested image runs unconfirmed in the primary slot, the old one waits confirmed in the other",
            rationale: """
                MCUboot swaps a TEST image in and leaves it to be confirmed; the listing shows the running image active \
                but not confirmed and the old image confirmed (swap type REVERT). Planners read this after the reset \
                to decide to confirm (ours; Nordic's FirmwareUpgradeManager), and poll until the device answers again.
                """, body: swapAfterReset),
        ConformanceCheck(
            "image.revert-without-confirm", .image, access: .writesAndReset,
            expects: "a second reset without confirm brings the old image back, confirmed; the tested one is left unmarked",
            rationale: """
                An unconfirmed test image is reverted at the next boot (MCUboot swap type REVERT): the safety net of \
                every test-and-confirm upgrade. The run ends with the image that ran before it.
                """, body: revertWithoutConfirm),
        ConformanceCheck(
            "image.erase", .image, access: .writes,
            expects: "erasing the upload slot succeeds and the slot is listed empty",
            rationale: """
                img_mgmt_erase of the unused slot; clients erase before an upload (Go mcumgr's ImageUpgradeCmd) and \
                after a cancelled one. Here it puts the device's slot back as the run found it.
                """, body: eraseUploaded),
    ]

    /// The swap precondition: an uploaded image, and a mode that tests and reverts.
    private static func swapPrecondition(_ context: ConformanceContext) async throws(ConformanceAbort) -> (image: [UInt8], hash: [UInt8])? {
        guard context.options.bootableImage != nil, let image = context.uploadedImage, let hash = ConformanceImage.hash(of: image) else { return nil }
        return (image, hash)
    }

    /// MCUboot modes that test and revert: swap using scratch (1), move (3), offset (9), or unknown.
    private static func swapsAndReverts(_ mode: Int?) -> Bool {
        guard let mode, mode >= 0 else { return true }
        return [1, 3, 9].contains(mode)
    }

    private static func testPending(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard context.options.bootableImage != nil else {
            return .skipped("needs --image FILE: an image this device boots and runs its SMP server from (its own firmware)")
        }
        guard let (_, hash) = try await swapPrecondition(context) else { return .skipped("image.upload-complete left no image to test") }
        let mode = try await context.bootloaderMode()
        guard swapsAndReverts(mode) else { return .skipped("MCUboot mode \(mode ?? -1) does not test and revert") }
        let (slot, _) = try await context.uploadSlot()
        let request = ProbeRequest(.write, group: .image, command: 0, value: .textMap(["hash": .bytes(hash), "confirm": .bool(false)]))
        guard let answer = try await context.send(request) else { return .fail("no answer to marking the uploaded image for test") }
        guard answer.isSuccess else { return .fail("marking the uploaded image for test was answered \(answer.summary)") }
        let table = try await context.imageTable() ?? []
        guard let row = ImageSlotRow.find(table, slot: slot), row.hash == hash, row.pending, !row.permanent, !row.confirmed else {
            return .fail("after test the table is \(ImageSlotRow.describe(table)); slot \(slot) should be pending, not permanent")
        }
        return .pass("slot \(slot) is pending (not permanent)")
    }

    private static func swapAfterReset(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let (_, hash) = try await swapPrecondition(context) else { return .skipped("no image was marked for test") }
        let before = try await context.imageTable() ?? []
        guard before.contains(where: { $0.hash == hash && $0.pending }) else { return .skipped("the uploaded image is not pending") }
        let reset = try await resetAndReturn(context)
        guard reset.status == .pass else { return reset }
        let table = try await context.imageTable() ?? []
        let original = try await context.initialImageTable()?.first { $0.image == 0 && $0.active }
        guard let running = table.first(where: { $0.image == 0 && $0.active }), running.hash == hash else {
            return .fail("after the reset the tested image does not run: \(ImageSlotRow.describe(table))")
        }
        guard !running.confirmed else { return .fail("after the reset the tested image runs confirmed: it would not revert (\(running))") }
        if let original, !table.contains(where: { $0.hash == original.hash && $0.confirmed && !$0.active }) {
            return .fail("after the reset the old image is not listed confirmed to come back: \(ImageSlotRow.describe(table))")
        }
        return .pass("the tested image runs unconfirmed; the old one is listed confirmed to come back")
    }

    private static func revertWithoutConfirm(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let (_, hash) = try await swapPrecondition(context) else { return .skipped("no image was swapped in") }
        guard let original = try await context.initialImageTable()?.first(where: { $0.image == 0 && $0.active }) else {
            return .skipped("the run found no running image 0")
        }
        let before = try await context.imageTable() ?? []
        guard before.contains(where: { $0.hash == hash && $0.active }) else { return .skipped("the tested image does not run") }
        let reset = try await resetAndReturn(context)
        guard reset.status == .pass else { return reset }
        var table = try await context.imageTable() ?? []
        if let running = table.first(where: { $0.image == 0 && $0.active }), running.hash == original.hash, running.confirmed {
            return .pass("the old image runs again, confirmed; the tested one waits unmarked")
        }
        // No revert: mark the old image permanent and reset once more, to leave the device as found.
        let failure = "after a second reset without confirm the old image did not come back: \(ImageSlotRow.describe(table))"
        let request = ProbeRequest(.write, group: .image, command: 0, value: .textMap(["hash": .bytes(original.hash), "confirm": .bool(true)]))
        if let answer = try await context.send(request), answer.isSuccess, try await resetAndReturn(context).status == .pass {
            table = try await context.imageTable() ?? []
            return .fail("\(failure); restored by confirming the old image and resetting: \(ImageSlotRow.describe(table))")
        }
        return .fail("\(failure); the old image could not be restored")
    }

    private static func eraseUploaded(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let image = context.uploadedImage, let hash = ConformanceImage.hash(of: image) else { return .skipped("no image was left in the upload slot") }
        let table = try await context.imageTable() ?? []
        guard let row = table.first(where: { $0.hash == hash && $0.image == 0 }), !row.active else {
            return .skipped("the uploaded image is not in the unused slot: \(ImageSlotRow.describe(table))")
        }
        if let problem = try await context.erase(slot: row.slot) { return .fail(problem) }
        context.setUploadedImage(nil)
        let after = try await context.imageTable() ?? []
        if let left = ImageSlotRow.find(after, slot: row.slot) { return .fail("after erasing, slot \(row.slot) still lists \(left)") }
        return .pass("slot \(row.slot) erased and listed empty")
    }
}
