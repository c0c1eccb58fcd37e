import CBOR
import Hex
import SMP

// The image table and the state writes that change nothing or undo themselves: the listing's
// shape, a hash no slot holds, erasing the running slot, confirming the running image, and the
// final comparison with the table the run found.

extension ConformanceCheck {
    /// The image state checks that run before the uploads.
    static let imageState: [ConformanceCheck] = [
        ConformanceCheck(
            "image.state", .image,
            expects: "image state lists each slot as {image?, slot, version \"x.y.z[.b]\", hash (32 bytes), flags as booleans}, one active slot per image",
            rationale: """
                The listing of img_mgmt_state_read() (smp_group_1.rst). smpclient validates each entry against \
                ImageState (smp/image_management.py: slot int, version str, optional image, hash and boolean flags, \
                extra="forbid"), mcumgr-toolkit decodes commands::image::ImageState (client.rs image_get_state); \
                planners match images by hash (ours, Nordic's FirmwareUpgradeManager). Flags absent mean false.
                """, body: state),
        ConformanceCheck(
            "image.test-unknown-hash", .image,
            expects: "marking a hash no slot holds is refused (IMG_MGMT_ERR_HASH_NOT_FOUND) and changes nothing",
            rationale: """
                img_mgmt_state_write() looks the hash up and answers IMG_MGMT_ERR_HASH_NOT_FOUND (8) in v2, a \
                translated rc in v1. Clients test and confirm by hash; a device that accepts an unknown one leaves them \
                believing an image is pending.
                """, body: testUnknownHash),
        ConformanceCheck(
            "image.erase-active-refused", .image, access: .writes,
            expects: "erasing the running image's slot is refused, and the running image stays listed",
            rationale: """
                img_mgmt_erase() refuses a slot in use (IMG_MGMT_ERR_NO_FREE_SLOT); an older erase ignores "slot" and \
                erases the unused slot, which leaves the running image too. Clients erase before uploading (Go \
                mcumgr's ImageUpgradeCmd, nmxact/xact/image.go; mcumgr-toolkit's image_erase defaults to slot 1). \
                Run only when the unused slot is empty (a device that fails this check has erased its running image: \
                use one you can reflash).
                """, body: eraseActiveRefused),
        ConformanceCheck(
            "image.confirm-running", .image, access: .writes,
            expects: "confirming the running, already confirmed image (no hash) succeeds and changes no flag",
            rationale: """
                state write {confirm: true} without a hash confirms the running image (boot_write_img_confirmed); \
                clients send it after every upgrade and again on reconnect (mcumgr-toolkit's image_set_state(None, \
                true); Nordic's ImageManager.confirm(hash: nil)). Only run when the running image is confirmed already, \
                so nothing changes.
                """, body: confirmRunning),
    ]

    /// The last check of a run with writes: the image table is as the run found it.
    static let imageRestored = ConformanceCheck(
        "image.restored", .image, access: .writes,
        expects: "after the run the image table is the one the run found (same slots, hashes and flags)",
        rationale: """
            A conformance run must not leave the device worse than it found it: every upload check erases the slot it \
            wrote, the swap checks revert to the image that ran.
            """, body: restored)

    private static func state(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        _ = try await context.initialImageTable()
        guard let answer = try await context.ask(ProbeRequest(.read, group: .image, command: 0)) else { return .fail("no answer to image state") }
        if answer.rc == SMPReturnCode.notSupported.rawValue { return .unsupported("image state answered rc 8 (MGMT_ERR_ENOTSUP)") }
        guard answer.isSuccess, let entries = answer.value?["images"]?.arrayValue else {
            return .fail("image state answered \(answer.summary), without an images array")
        }
        var problems: [String] = []
        for (index, entry) in entries.enumerated() {
            problems += shapeProblems(entry).map { "entry \(index): \($0)" }
        }
        guard problems.isEmpty, let rows = ImageSlotRow.rows(of: answer.value) else { return .fail(problems.joined(separator: "; ")) }
        for image in Set(rows.map(\.image)) where rows.filter({ $0.image == image && $0.active }).count > 1 {
            return .fail("image \(image) lists more than one active slot")
        }
        return .pass(ImageSlotRow.describe(rows))
    }

    /// What is wrong with one entry of the images array.
    private static func shapeProblems(_ entry: CBORValue) -> [String] {
        guard entry.mapEntries != nil else { return ["not a map"] }
        var problems: [String] = []
        for key in ["image", "slot"] where entry[key] != nil {
            if case .unsigned = entry[key]! {} else { problems.append("\(key) is not an unsigned integer") }
        }
        if entry["slot"] == nil { problems.append("no slot") }
        if let version = entry["version"]?.textValue {
            if !isVersion(version) { problems.append("version \"\(version)\" is not x.y.z or x.y.z.build") }
        } else {
            problems.append("no version text")
        }
        if let hash = entry["hash"]?.bytesValue {
            if hash.count != 32 { problems.append("a hash of \(hash.count) bytes, not 32") }
        } else {
            problems.append("no hash byte string")
        }
        for flag in ["bootable", "pending", "confirmed", "active", "permanent"] where entry[flag] != nil && entry[flag]?.boolValue == nil {
            problems.append("\(flag) is not a boolean")
        }
        return problems
    }

    /// `x.y.z` or `x.y.z.build`, decimal numbers.
    static func isVersion(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return (3...4).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    private static func testUnknownHash(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let before = try await context.imageTable()
        let request = ProbeRequest(.write, group: .image, command: 0, value: .textMap(["hash": .bytes(unknownHash), "confirm": .bool(false)]))
        guard let answer = try await context.send(request) else { return .fail("no answer to marking an unknown hash for test") }
        if answer.rc == SMPReturnCode.notSupported.rawValue { return .unsupported("image state write answered rc 8 (MGMT_ERR_ENOTSUP)") }
        if answer.isSuccess { return .fail("marking a hash no slot holds (\(unknownHash.prefix(4).hexString)…) was accepted: \(answer.summary)") }
        let after = try await context.imageTable()
        guard after == before else { return .fail("refused with \(answer.summary), but the image table changed") }
        return .pass("refused with \(answer.summary); the image table is unchanged")
    }

    private static func eraseActiveRefused(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        let (_, refusal) = try await context.uploadSlot()
        if let refusal { return .skipped(refusal) }
        guard let before = try await context.imageTable(), let running = before.first(where: { $0.image == 0 && $0.active }) else {
            return .skipped("the image table lists no running image 0")
        }
        let request = ProbeRequest(.write, group: .image, command: 5, value: .textMap(["slot": .int(running.slot)]))
        guard let answer = try await context.send(request) else { return .fail("no answer to erasing the running slot \(running.slot)") }
        let after = try await context.imageTable() ?? []
        guard let still = ImageSlotRow.find(after, slot: running.slot), still.hash == running.hash else {
            return .fail("erasing slot \(running.slot) was answered \(answer.summary) and the running image is gone from the table: \(ImageSlotRow.describe(after))")
        }
        if answer.isSuccess { return .pass("erasing slot \(running.slot) was answered with success, but the running image stays (the erase ignored the slot)") }
        return .pass("erasing the running slot \(running.slot) was refused with \(answer.summary)")
    }

    private static func confirmRunning(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let before = try await context.imageTable(), let running = before.first(where: { $0.image == 0 && $0.active }) else {
            return .skipped("the image table lists no running image 0")
        }
        guard running.confirmed else { return .skipped("the running image is on test: confirming it cannot be undone") }
        if let why = ImageSlotRow.resetWouldChange(before) { return .skipped("the images are in the middle of an upgrade: \(why)") }
        let request = ProbeRequest(.write, group: .image, command: 0, value: .textMap(["confirm": .bool(true)]))
        guard let answer = try await context.send(request) else { return .fail("no answer to confirming the running image") }
        if answer.rc == SMPReturnCode.notSupported.rawValue { return .unsupported("image state write answered rc 8 (MGMT_ERR_ENOTSUP)") }
        guard answer.isSuccess else { return .fail("confirming the running, confirmed image was answered \(answer.summary)") }
        let after = try await context.imageTable()
        guard after == before else { return .fail("confirming the running, confirmed image changed the table: \(ImageSlotRow.describe(after ?? []))") }
        return .pass("confirmed the running image; nothing changed")
    }

    private static func restored(_ context: ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome {
        guard let initial = try await context.initialImageTable() else { return .skipped("the device lists no images") }
        guard let now = try await context.imageTable() else { return .fail("no image table at the end of the run") }
        guard now == initial else {
            return .fail("the image table is not the one found: was \(ImageSlotRow.describe(initial)); is \(ImageSlotRow.describe(now))")
        }
        return .pass("the image table is the one the run found")
    }
}
