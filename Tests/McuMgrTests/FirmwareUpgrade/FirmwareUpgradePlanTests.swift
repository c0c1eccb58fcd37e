import McuBoot
@testable import McuMgr
import SMP
import Testing

/// The planner alone: every bootloader mode against every kind of slot table, no device.
@Suite("Firmware upgrade plan: bootloader modes × slot tables")
struct FirmwareUpgradePlanTests {
    /// The image being installed (version 2.0.0).
    static let new = try! UpgradeFixtures.image(size: 2048, version: "2.0.0", seed: 21)
    /// An older image than the new one, running at start.
    static let old = try! UpgradeFixtures.image(size: 2048, version: "1.0.0", seed: 22)
    /// Someone else's image (version 1.5.0).
    static let foreign = try! UpgradeFixtures.image(size: 2048, version: "1.5.0", seed: 23)
    /// A newer image than the new one (version 3.0.0).
    static let newer = try! UpgradeFixtures.image(size: 2048, version: "3.0.0", seed: 24)

    /// A slot-table entry; `flags` among "active", "confirmed", "pending", "permanent".
    static func slot(_ slot: Int, _ image: McuBootImage, _ flags: Set<String>, image index: Int = 0) -> ImageSlot {
        ImageSlot(
            image: index, slot: slot, version: image.version.deviceString, hash: image.hash,
            pending: flags.contains("pending"), confirmed: flags.contains("confirmed"), active: flags.contains("active"),
            permanent: flags.contains("permanent"))
    }

    /// The slot tables a device can show, by name.
    static let tables: [String: [ImageSlot]] = [
        "fresh": [slot(0, old, ["active", "confirmed"])],
        "foreign plain": [slot(0, old, ["active", "confirmed"]), slot(1, foreign, [])],
        "foreign test": [slot(0, old, ["active", "confirmed"]), slot(1, foreign, ["pending"])],
        "foreign permanent": [slot(0, old, ["active", "confirmed"]), slot(1, foreign, ["pending", "permanent"])],
        "foreign confirmed": [slot(0, old, ["active"]), slot(1, foreign, ["confirmed"])],
        "ours stored": [slot(0, old, ["active", "confirmed"]), slot(1, new, [])],
        "ours test": [slot(0, old, ["active", "confirmed"]), slot(1, new, ["pending"])],
        "ours permanent": [slot(0, old, ["active", "confirmed"]), slot(1, new, ["pending", "permanent"])],
        "ours on test": [slot(0, new, ["active"]), slot(1, old, ["confirmed"])],
        "ours running": [slot(0, new, ["active", "confirmed"]), slot(1, old, [])],
        "ours confirmed behind a test": [slot(0, foreign, ["active"]), slot(1, new, ["confirmed"])],
        // Direct-XIP: the image runs from slot 1, slot 0 is the free one.
        "xip running in 1": [slot(0, foreign, []), slot(1, old, ["active", "confirmed"])],
        "xip foreign test in 0": [slot(0, foreign, ["pending"]), slot(1, old, ["active", "confirmed"])],
        "xip newer running": [slot(0, newer, ["active", "confirmed"])],
        "xip ours older stored": [slot(0, newer, ["active", "confirmed"]), slot(1, new, [])],
    ]

    /// What a plan says to do, in order, e.g. `erase 1, upload 0, test 0, reset`.
    static func summary(_ plan: FirmwareUpgradePlan) -> String {
        var steps: [String] = []
        if plan.resetFirst != nil { steps.append("reset first") }
        steps += plan.erases.map { "erase \($0.absolute)" }
        steps += plan.uploads.map { "upload \($0)" }
        steps += plan.tests.map { "test \($0)" }
        steps += plan.permanents.map { "permanent \($0)" }
        steps += plan.confirms.map { "confirm \($0)" }
        if plan.needsReset { steps.append("reset") }
        return steps.isEmpty ? "done" : steps.joined(separator: ", ")
    }

    static func plan(
        _ table: String, _ mode: FirmwareUpgradeMode, _ bootloader: BootloaderMode?, refused: Set<Int> = []
    ) throws(PlanRefusal) -> String {
        let plan = try FirmwareUpgradePlan(
            images: [FirmwareUpgradeImage(image: new)], slots: tables[table]!, mode: mode, bootloader: bootloader,
            refusedErases: refused)
        return summary(plan)
    }

    /// One expectation: the plan for `table` in each upgrade mode (test-and-confirm, confirm-only,
    /// test-only, upload-only).
    struct Case: Sendable, CustomTestStringConvertible {
        let table: String
        let expected: [FirmwareUpgradeMode: String]
        var testDescription: String { table }

        init(_ table: String, testAndConfirm: String, confirmOnly: String, testOnly: String, uploadOnly: String) {
            self.table = table
            expected = [.testAndConfirm: testAndConfirm, .confirmOnly: confirmOnly, .testOnly: testOnly, .uploadOnly: uploadOnly]
        }
    }

    /// Swap modes (and overwrite-only, and an unknown mode): test/confirm through the trailers, the
    /// secondary held while marked or while a revert waits.
    static let swapCases: [Case] = [
        Case("fresh", testAndConfirm: "upload 0, test 0, reset", confirmOnly: "upload 0, permanent 0, reset",
             testOnly: "upload 0, test 0, reset", uploadOnly: "upload 0"),
        Case("foreign plain", testAndConfirm: "upload 0, test 0, reset", confirmOnly: "upload 0, permanent 0, reset",
             testOnly: "upload 0, test 0, reset", uploadOnly: "upload 0"),
        Case("foreign test", testAndConfirm: "erase 1, upload 0, test 0, reset",
             confirmOnly: "erase 1, upload 0, permanent 0, reset", testOnly: "erase 1, upload 0, test 0, reset",
             uploadOnly: "erase 1, upload 0"),
        Case("foreign permanent", testAndConfirm: "erase 1, upload 0, test 0, reset",
             confirmOnly: "erase 1, upload 0, permanent 0, reset", testOnly: "erase 1, upload 0, test 0, reset",
             uploadOnly: "erase 1, upload 0"),
        Case("foreign confirmed", testAndConfirm: "reset first", confirmOnly: "reset first", testOnly: "reset first",
             uploadOnly: "reset first"),
        Case("ours stored", testAndConfirm: "test 0, reset", confirmOnly: "permanent 0, reset", testOnly: "test 0, reset",
             uploadOnly: "done"),
        Case("ours test", testAndConfirm: "reset", confirmOnly: "reset", testOnly: "reset", uploadOnly: "done"),
        Case("ours permanent", testAndConfirm: "reset", confirmOnly: "reset", testOnly: "reset", uploadOnly: "done"),
        Case("ours on test", testAndConfirm: "confirm 0", confirmOnly: "confirm 0", testOnly: "done", uploadOnly: "done"),
        Case("ours running", testAndConfirm: "done", confirmOnly: "done", testOnly: "done", uploadOnly: "done"),
        Case("ours confirmed behind a test", testAndConfirm: "reset", confirmOnly: "reset", testOnly: "reset",
             uploadOnly: "done"),
    ]

    @Test("swap and overwrite modes", arguments: [nil, .unknown, .swapUsingScratch, .swapUsingMove, .swapUsingOffset, .overwriteOnly] as [BootloaderMode?])
    func swapModes(bootloader: BootloaderMode?) throws {
        for item in Self.swapCases {
            for (mode, expected) in item.expected {
                #expect(try Self.plan(item.table, mode, bootloader) == expected, "\(item.table), \(mode)")
            }
        }
    }

    @Test("a refused erase of a foreign pending image becomes a reset first", arguments: [nil, .swapUsingMove, .directXIPWithRevert] as [BootloaderMode?])
    func refusedErase(bootloader: BootloaderMode?) throws {
        for table in ["foreign test", "foreign permanent"] {
            for mode in FirmwareUpgradeMode.allCases {
                #expect(try Self.plan(table, mode, bootloader, refused: [0]) == "reset first", "\(table), \(mode)")
            }
        }
    }

    /// Direct-XIP with revert: the trailers matter as in swap modes, and the highest version boots.
    static let revertCases: [Case] = [
        Case("fresh", testAndConfirm: "upload 0, test 0, reset", confirmOnly: "upload 0, permanent 0, reset",
             testOnly: "upload 0, test 0, reset", uploadOnly: "upload 0"),
        Case("xip running in 1", testAndConfirm: "upload 0, test 0, reset", confirmOnly: "upload 0, permanent 0, reset",
             testOnly: "upload 0, test 0, reset", uploadOnly: "upload 0"),
        Case("xip foreign test in 0", testAndConfirm: "erase 0, upload 0, test 0, reset",
             confirmOnly: "erase 0, upload 0, permanent 0, reset", testOnly: "erase 0, upload 0, test 0, reset",
             uploadOnly: "erase 0, upload 0"),
        Case("foreign confirmed", testAndConfirm: "reset first", confirmOnly: "reset first", testOnly: "reset first",
             uploadOnly: "reset first"),
        Case("ours test", testAndConfirm: "reset", confirmOnly: "reset", testOnly: "reset", uploadOnly: "done"),
        Case("ours on test", testAndConfirm: "confirm 0", confirmOnly: "confirm 0", testOnly: "done", uploadOnly: "done"),
        Case("ours running", testAndConfirm: "done", confirmOnly: "done", testOnly: "done", uploadOnly: "done"),
    ]

    @Test("direct-XIP with revert")
    func directXIPWithRevert() throws {
        for item in Self.revertCases {
            for (mode, expected) in item.expected {
                #expect(try Self.plan(item.table, mode, .directXIPWithRevert) == expected, "\(item.table), \(mode)")
            }
        }
    }

    /// Direct-XIP without revert: no test or confirm, flags only say which slot boots next, and any
    /// slot but the running one may be overwritten.
    static let noRevertCases: [Case] = [
        Case("fresh", testAndConfirm: "upload 0, reset", confirmOnly: "upload 0, reset", testOnly: "upload 0, reset",
             uploadOnly: "upload 0"),
        Case("foreign permanent", testAndConfirm: "upload 0, reset", confirmOnly: "upload 0, reset",
             testOnly: "upload 0, reset", uploadOnly: "upload 0"),
        Case("xip running in 1", testAndConfirm: "upload 0, reset", confirmOnly: "upload 0, reset",
             testOnly: "upload 0, reset", uploadOnly: "upload 0"),
        Case("ours permanent", testAndConfirm: "reset", confirmOnly: "reset", testOnly: "reset", uploadOnly: "done"),
        Case("ours running", testAndConfirm: "done", confirmOnly: "done", testOnly: "done", uploadOnly: "done"),
    ]

    @Test("direct-XIP without revert")
    func directXIP() throws {
        for item in Self.noRevertCases {
            for (mode, expected) in item.expected {
                #expect(try Self.plan(item.table, mode, .directXIP) == expected, "\(item.table), \(mode)")
            }
        }
    }

    @Test("direct-XIP refuses an image that is not newer than the running one: it would never boot", arguments: [BootloaderMode.directXIP, .directXIPWithRevert])
    func directXIPNotNewer(bootloader: BootloaderMode) throws {
        for table in ["xip newer running", "xip ours older stored"] {
            for mode in [FirmwareUpgradeMode.testAndConfirm, .confirmOnly, .testOnly] {
                let refusal = #expect(throws: PlanRefusal.self) { try Self.plan(table, mode, bootloader) }
                guard let reason = refusal?.reason, case .notNewerThanRunning(let image, let running, let new, let reported) = reason else {
                    Issue.record("\(table), \(mode): \(String(describing: refusal))")
                    continue
                }
                #expect(image == 0 && running == "3.0.0" && new == "2.0.0" && reported == bootloader)
                #expect(FirmwareUpgradeError(state: .validate, reason: reason).description.contains("would never run"))
            }
        }
        // Upload-only only stores the image, which is allowed whatever its version.
        #expect(try Self.plan("xip newer running", .uploadOnly, bootloader) == "upload 0")
    }

    @Test("RAM load, firmware loader and single-slot modes: upload-only, anything else a clear refusal", arguments: [BootloaderMode.ramLoad, .singleSlotRAMLoad, .firmwareLoader, .singleApplication])
    func uploadOnlyModes(bootloader: BootloaderMode) throws {
        #expect(try Self.plan("fresh", .uploadOnly, bootloader) == "upload 0")
        for mode in [FirmwareUpgradeMode.testAndConfirm, .confirmOnly, .testOnly] {
            let refusal = #expect(throws: PlanRefusal.self) { try Self.plan("fresh", mode, bootloader) }
            guard let reason = refusal?.reason, case .unsupportedBootloaderMode(let reported, let refused) = reason else {
                Issue.record("\(bootloader), \(mode): \(String(describing: refusal))")
                continue
            }
            #expect(reported == bootloader && refused == mode)
            let text = FirmwareUpgradeError(state: .validate, reason: reason).description
            #expect(text.contains("Supported: upload-only"), "\(text)")
            #expect(text.contains(mode.rawValue), "\(text)")
        }
    }

    @Test("each image of a multi-image upgrade is planned on its own slots")
    func multiImage() throws {
        let net = try UpgradeFixtures.image(size: 2048, version: "2.0.0", seed: 31)
        let slots = [
            Self.slot(0, Self.old, ["active", "confirmed"]),
            Self.slot(0, Self.old, ["active", "confirmed"], image: 1), Self.slot(1, Self.foreign, ["pending"], image: 1),
        ]
        let images = [FirmwareUpgradeImage(index: 0, image: Self.new), FirmwareUpgradeImage(index: 1, image: net)]
        let plan = try FirmwareUpgradePlan(images: images, slots: slots, mode: .testAndConfirm, bootloader: .swapUsingMove)
        #expect(Self.summary(plan) == "erase 3, upload 0, upload 1, test 0, test 1, reset")
        let refused = try FirmwareUpgradePlan(
            images: images, slots: slots, mode: .testAndConfirm, bootloader: .swapUsingMove, refusedErases: [1])
        #expect(Self.summary(refused) == "reset first")
    }
}
