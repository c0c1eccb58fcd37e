import SMPTestTraits
import SMPTestSupport
import CBOR
import Foundation
import McuMgr
import SMP
import Testing

/// What real Zephyr devices send that a strict client trips on (interop notes), answered by a scripted device.
@Suite("Managers accept what fielded devices send", .virtualTime)
struct FieldQuirkTests {
    static let hash = [UInt8](repeating: 0x5a, count: 32)

    @Test func successMayCarryRCZero() async throws {
        try await ScriptedDevice.with(script: { _, _ in
            .fields([("rc", .unsigned(0)), ("stat_list", .array([.text("smp"), .text("ble")]))])
        }) { client async throws in
            #expect(try await StatsManager(client: client).list() == ["smp", "ble"])
        }
    }

    @Test func frugalImageListWithoutImageNumberOrFalseFlags() async throws {
        try await ScriptedDevice.with(script: { _, _ in
            .fields([
                ("images", .array([
                    .fields([("slot", .int(0)), ("version", .text("1.0.0")), ("hash", .bytes(Self.hash)), ("active", .bool(true)), ("confirmed", .bool(true)), ("bootable", .bool(true))]),
                    .fields([("slot", .int(1)), ("version", .text("1.0.1.4")), ("hash", .bytes(Self.hash.reversed())), ("extra", .text("ignored"))]),
                ])),
            ])
        }) { client async throws in
            let slots = try await ImageManager(client: client).list()
            #expect(slots == [
                ImageSlot(image: 0, slot: 0, version: "1.0.0", hash: Self.hash, bootable: true, confirmed: true, active: true),
                ImageSlot(image: 0, slot: 1, version: "1.0.1.4", hash: Self.hash.reversed(), bootable: false),
            ])
        }
    }

    @Test func bootloaderModeQueryAnsweredWithModeAlone() async throws {
        try await ScriptedDevice.with(script: { _, request in
            request["query"] == nil ? .fields([("bootloader", .text("MCUboot"))]) : .fields([("mode", .int(3))])
        }) { client async throws in
            let info = try await DefaultManager(client: client).bootloaderInfo()
            #expect(info == BootloaderInfo(name: "MCUboot", mode: 3, noDowngrade: false))
        }
    }

    @Test func bootloaderWithoutAModeAnswer() async throws {
        try await ScriptedDevice.with(script: { _, request in
            request["query"] == nil
                ? .fields([("bootloader", .text("other"))])
                : .fields([("err", .fields([("group", .int(0)), ("rc", .int(3))]))])
        }) { client async throws in
            let info = try await DefaultManager(client: client).bootloaderInfo()
            #expect(info == BootloaderInfo(name: "other", mode: nil, noDowngrade: false))
            #expect(info.bootloaderMode == nil)
        }
    }

    @Test func missingStatsGroupReportedUnderGroup63() async throws {
        try await ScriptedDevice.with(script: { _, _ in .fields([("err", .fields([("group", .int(63)), ("rc", .int(2))]))]) }) { client async throws in
            let error = await deviceError { _ = try await StatsManager(client: client).read(group: "nope") }
            #expect(error == .stats(.invalidGroup))
            #expect(error?.description.contains("STAT_MGMT_ERR_INVALID_GROUP") == true)
        }
    }

    @Test func mpstatAnsweredInV1FormIsNotSupported() async throws {
        try await ScriptedDevice.with(version: .v1, script: { _, _ in .fields([("rc", .int(8))]) }) { client async throws in
            let error = await deviceError { _ = try await DefaultManager(client: client).memoryPoolStats() }
            #expect(error?.status == .notSupported)
        }
    }

    @Test func mynewtMemoryPoolsUnderMpools() async throws {
        let pool: CBORValue = .fields([("blksiz", .int(16)), ("nblks", .int(10)), ("nfree", .int(4)), ("min", .int(1))])
        try await ScriptedDevice.with(script: { _, _ in .fields([("rc", .int(0)), ("mpools", .fields([("msys_1", pool)]))]) }) { client async throws in
            let pools = try await DefaultManager(client: client).memoryPoolStats()
            #expect(pools == ["msys_1": MemoryPoolStat(blockSize: 16, blockCount: 10, freeBlocks: 4, minimumFree: 1)])
        }
    }

    @Test func mynewtWithoutMemoryPools() async throws {
        // An explicit empty "mpools" is an answer (no pools); a bare {} is not (RequiredFieldTests).
        try await ScriptedDevice.with(script: { _, _ in .fields([("mpools", .fields([]))]) }) { client async throws in
            #expect(try await DefaultManager(client: client).memoryPoolStats() == [:])
        }
    }

    @Test func levelListAsAMap() async throws {
        try await ScriptedDevice.with(script: { _, _ in
            .fields([("level_map", .fields([("ERROR", .int(3)), ("DEBUG", .int(0)), ("INFO", .int(1)), ("WARN", .int(2))]))])
        }) { client async throws in
            #expect(try await LogManager(client: client).levelList() == ["DEBUG", "INFO", "WARN", "ERROR"])
        }
    }

    @Test func logEntryWithATextMessage() async throws {
        let entry: CBORValue = .fields([("msg", .text("hello")), ("ts", .int(5)), ("level", .int(1)), ("index", .int(7)), ("module", .int(0))])
        try await ScriptedDevice.with(script: { _, _ in
            .fields([("next_index", .int(8)), ("logs", .array([.fields([("name", .text("log")), ("type", .int(1)), ("entries", .array([entry]))])]))])
        }) { client async throws in
            let page = try await LogManager(client: client).show()
            #expect(page.nextIndex == 8)
            #expect(page.logs.first?.entries.first?.text == "hello")
            #expect(page.logs.first?.entries.first?.index == 7)
        }
    }

    @Test func legacyShellReturnCodeInRC() async throws {
        try await ScriptedDevice.with(version: .v1, script: { _, _ in .fields([("o", .text("bad: -22\n")), ("rc", .int(22))]) }) { client async throws in
            let result = try await ShellManager(client: client).execute(["bad"])
            #expect(result == ShellResult(output: "bad: -22\n", returnCode: 22))
        }
        try await ScriptedDevice.with(script: { _, _ in .fields([("o", .text("ok\n")), ("rc", .int(0))]) }) { client async throws in
            #expect(try await ShellManager(client: client).execute(["ok"]) == ShellResult(output: "ok\n", returnCode: 0))
        }
    }

    @Test func shellStatusWithoutOutputIsStillAnError() async throws {
        try await ScriptedDevice.with(script: { _, _ in .fields([("rc", .int(8))]) }) { client async throws in
            let error = await deviceError { _ = try await ShellManager(client: client).execute(["x"]) }
            #expect(error?.status == .notSupported)
        }
        try await ScriptedDevice.with(script: { _, _ in .fields([("err", .fields([("group", .int(9)), ("rc", .int(2))]))]) }) { client async throws in
            let error = await deviceError { _ = try await ShellManager(client: client).execute(["x"]) }
            #expect(error == .shell(.commandTooLong))
        }
    }

    @Test func dateTimeWithFractionAndZoneSuffix() async throws {
        let texts = TextQueue([
            "2024-03-05T10:20:30.5+02:00", "2024-03-05T10:20:30.123456Z", "2024-03-05T10:20:30", "2024-03-05T10:20:30.42",
        ])
        try await ScriptedDevice.with(script: { _, _ in .fields([("datetime", .text(texts.next()))]) }) { client async throws in
            let os = DefaultManager(client: client)
            let utc = TimeZone(identifier: "UTC")!
            let base = Date(timeIntervalSince1970: 1_709_634_030)  // 2024-03-05T10:20:30Z
            let zoned = try await os.readDateTime(timeZone: utc)
            #expect(abs(zoned.timeIntervalSince(base) - (-7200 + 0.005)) < 0.0005)
            let micro = try await os.readDateTime(timeZone: TimeZone(identifier: "America/New_York")!)
            #expect(abs(micro.timeIntervalSince(base) - 0.123456) < 0.000_01)
            let plain = try await os.readDateTime(timeZone: TimeZone(secondsFromGMT: 3600)!)
            #expect(plain == base.addingTimeInterval(-3600))
            let ms = try await os.readDateTime(timeZone: utc)
            #expect(abs(ms.timeIntervalSince(base) - 0.042) < 0.0005)
        }
    }

    @Test func unreadableDateTimeIsAnInvalidResponse() async throws {
        try await ScriptedDevice.with(script: { _, _ in .fields([("datetime", .text("yesterday"))]) }) { client async throws in
            let message = await invalidResponse { _ = try await DefaultManager(client: client).readDateTime() }
            #expect(message?.contains("\"yesterday\" is not a date-time") == true)
        }
    }

    @Test func uploadAnswerWithRCZeroAndMatch() async throws {
        try await ScriptedDevice.with(script: { _, request in
            let off = request["off"]?.intValue ?? 0
            let count = request["data"]?.bytesValue?.count ?? 0
            return .fields([("rc", .int(0)), ("off", .int(off + count)), ("match", .bool(false))])
        }) { client async throws in
            let answer = try await ImageManager(client: client).upload(offset: 0, data: [1, 2, 3], length: 3, sha: Self.hash)
            #expect(answer == ImageUploadResponse(offset: 3, match: false))
        }
    }

    @Test func downloadThatOverrunsOrStopsShortIsRefused() async throws {
        // The device claims 4 bytes but keeps sending 3-byte chunks.
        try await ScriptedDevice.with(script: { _, request in
            let off = request["off"]?.intValue ?? 0
            var fields: [(String, CBORValue)] = [("off", .int(off)), ("data", .bytes([1, 2, 3]))]
            if off == 0 { fields.append(("len", .int(4))) }
            return .fields(fields)
        }) { client async throws in
            let message = await invalidResponse { _ = try await FileSystemManager(client: client).download(name: "/f") }
            #expect(message?.contains("the device sent 6 bytes of a 4-byte file") == true)
        }
        // The device claims 10 bytes, then sends nothing more after 3.
        try await ScriptedDevice.with(script: { _, request in
            let off = request["off"]?.intValue ?? 0
            return off == 0 ? .fields([("off", .int(0)), ("data", .bytes([1, 2, 3])), ("len", .int(10))]) : .fields([("off", .int(off)), ("data", .bytes([]))])
        }) { client async throws in
            let message = await invalidResponse { _ = try await FileSystemManager(client: client).download(name: "/f") }
            #expect(message?.contains("the device sent no data at offset 3 of 10") == true)
        }
    }
}
