import SMPTestTraits
import McuMgr
import SMP
import Testing

@Suite("LogManager against the simulator", .virtualTime)
struct LogManagerTests {
    @Test func showReturnsEntriesAndNextIndex() async throws {
        try await ManagerHarness.with { h async throws in
            try await h.config.save()  // logs "settings saved"
            let page = try await h.log.show()
            let log = try #require(page.logs.first)
            #expect(log.name == "sim")
            #expect(log.entries.count >= 2)
            #expect(log.entries.map(\.index) == Array(0..<log.entries.count))
            #expect(page.nextIndex == (log.entries.last?.index ?? -1) + 1)
            #expect(log.entries.contains { $0.text == "boot 1" })
            #expect(log.entries.contains { $0.text == "settings saved" })

            let rest = try await h.log.show(index: page.nextIndex)
            #expect(rest.logs.allSatisfy { $0.entries.isEmpty })
        }
    }

    @Test func showAllFollowsNextIndexAcrossPages() async throws {
        try await ManagerHarness.with({ $0.bufferSize = 512 }) { h async throws in
            // What the device logged as it booted ("boot 1", the reset reason), then 30 more.
            let atBoot = try #require(try await h.log.showAll().first).entries.count
            #expect(atBoot > 0)
            for _ in 0..<30 { try await h.config.save() }
            // What the device holds: at least those 31; more when a save was resent (it is idempotent,
            // and under ThreadSanitizer's slowness a virtual-time timeout can beat the device's answer).
            let held = await h.device.logMessages
            #expect(held.count >= atBoot + 30)
            let first = try await h.log.show()
            let firstCount = first.logs.first?.entries.count ?? 0
            #expect(firstCount < held.count)  // one response cannot hold them all

            let all = try await h.log.showAll()
            let entries = try #require(all.first).entries
            #expect(all.count == 1)
            #expect(entries.map(\.text) == held)
            #expect(entries.map(\.index) == Array(0..<held.count))
        }
    }

    @Test func clearEmptiesTheLog() async throws {
        try await ManagerHarness.with { h async throws in
            #expect(try await h.log.show().logs.first?.entries.isEmpty == false)
            try await h.log.clear()
            #expect(try await h.log.show().logs.allSatisfy { $0.entries.isEmpty })
        }
    }

    @Test func listsOfModulesLevelsAndLogs() async throws {
        try await ManagerHarness.with { h async throws in
            let modules = try await h.log.moduleList()
            #expect(modules["OS"] == 1)
            #expect(modules["BOOT"] == 6)
            #expect(try await h.log.levelList() == ["DEBUG", "INFO", "WARN", "ERROR", "CRITICAL"])
            #expect(try await h.log.logsList() == ["sim"])
        }
    }

    @Test func aZephyrWithoutTheLogGroupAnswersNotSupported() async throws {
        try await ManagerHarness.with({ $0.offersLogGroup = false }) { h async throws in
            let error = await deviceError { _ = try await h.log.logsList() }
            #expect(error?.status == .notSupported)
            #expect(error?.description.contains("MGMT_ERR_ENOTSUP") == true)
        }
    }
}
