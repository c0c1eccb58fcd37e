import SMPTestTraits
import SMPTestSupport
import Foundation
import McuMgr
import SMP
import SMPSimulator
import Synchronization
import Testing

@Suite("DefaultManager against the simulator", .virtualTime)
struct DefaultManagerTests {
    @Test func echoReturnsTheText() async throws {
        try await ManagerHarness.with { h async throws in
            #expect(try await h.os.echo("hello") == "hello")
            #expect(try await h.os.echo("grüße, 世界") == "grüße, 世界")
            #expect(try await h.os.echo("") == "")
        }
    }

    @Test func consoleEchoIsAcceptedOrNotSupported() async throws {
        // Each call is an OS command 1 write of {"echo": 0 or 1} (its bytes: WireEncodingTests).
        let requests = Mutex<[String]>([])
        try await ScriptedDevice.with(script: { header, request in
            let echo = request["echo"]?.intValue.map(String.init) ?? "none"
            requests.withLock { $0.append("\(header.operation == .write ? "write" : "read") \(header.group)/\(header.command) echo=\(echo) keys=\(request.mapEntries?.count ?? 0)") }
            return .fields([])
        }) { client async throws in
            try await DefaultManager(client: client).setConsoleEcho(false)
            try await DefaultManager(client: client).setConsoleEcho(true)
        }
        #expect(requests.withLock { $0 } == ["write 0/1 echo=0 keys=1", "write 0/1 echo=1 keys=1"])
        // The simulator, written from the protocol reference, takes the request too.
        try await ManagerHarness.with { h async throws in
            try await h.os.setConsoleEcho(false)
        }
        try await ManagerHarness.with({ $0.answersDocumentedOSCommands = false }) { h async throws in
            let error = await deviceError { try await h.os.setConsoleEcho(false) }
            #expect(error?.status == .notSupported)
        }
    }

    @Test func taskStatsListTheThreads() async throws {
        try await ManagerHarness.with { h async throws in
            let tasks = try await h.os.taskStats()
            #expect(Set(tasks.keys).isSuperset(of: ["idle", "main"]))
            let main = try #require(tasks["main"])
            #expect(main.stackSize == 512)
            #expect(main.stackUsed == 210)
            #expect(tasks["idle"]?.priority == 15)
        }
    }

    @Test func memoryPoolStatsReadTopLevelPools() async throws {
        try await ManagerHarness.with { h async throws in
            let pools = try await h.os.memoryPoolStats()
            #expect(pools["heap"] == MemoryPoolStat(blockSize: 8, blockCount: 2048, freeBlocks: 1536, minimumFree: 1200))
            #expect(pools["netbuf"]?.blockSize == 2048)
        }
        try await ManagerHarness.with({ $0.answersDocumentedOSCommands = false }) { h async throws in
            let error = await deviceError { _ = try await h.os.memoryPoolStats() }
            #expect(error?.status == .notSupported)
        }
    }

    @Test func dateTimeRoundTripsToTheSecond() async throws {
        try await ManagerHarness.with { h async throws in
            let zone = try #require(TimeZone(identifier: "Asia/Kolkata"))
            let now = Date()
            try await h.os.writeDateTime(now, timeZone: zone)
            let read = try await h.os.readDateTime(timeZone: zone)
            // Whole seconds are sent; the device's clock may have ticked once since.
            let sent = now.timeIntervalSince1970.rounded(.down)
            #expect(read.timeIntervalSince1970 >= sent)
            #expect(read.timeIntervalSince1970 <= sent + 1)

            // The device keeps wall-clock time without a zone: read in UTC, it is 5 h 30 min later.
            let asUTC = try await h.os.readDateTime(timeZone: TimeZone(identifier: "UTC")!)
            #expect(abs(asUTC.timeIntervalSince(read) - 5.5 * 3600) < 2)
        }
    }

    @Test func dateTimeWithMillisecondsIsRead() async throws {
        try await ManagerHarness.with({ $0.datetimeHasMilliseconds = true }) { h async throws in
            let utc = TimeZone(identifier: "UTC")!
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            try await h.os.writeDateTime(start, timeZone: utc)
            let read = try await h.os.readDateTime(timeZone: utc)
            #expect(read.timeIntervalSince(start) >= 0)
            #expect(read.timeIntervalSince(start) < 2)
        }
    }

    @Test func dateTimeBeforeTheClockIsSetIsAnOSError() async throws {
        try await ManagerHarness.with({ $0.clockStartsSet = false }) { h async throws in
            let error = await deviceError { _ = try await h.os.readDateTime() }
            #expect(error == .os(.rtcNotSet))
            #expect(error?.description.contains("OS_MGMT_ERR_RTC_NOT_SET") == true)
        }
    }

    @Test func resetRebootsTheDevice() async throws {
        try await ManagerHarness.with { h async throws in
            #expect(await h.device.bootCount == 1)
            try await h.os.reset()
            try await h.waitForBoot(2)
            try await h.os.reset(force: true)
            try await h.waitForBoot(3)
            #expect(try await h.os.echo("back") == "back")
        }
    }

    @Test func parametersAreTheConfiguredBuffers() async throws {
        try await ManagerHarness.with { h async throws in
            #expect(try await h.os.parameters() == McuMgrParameters(bufferSize: 2048, bufferCount: 4))
        }
        try await ManagerHarness.with({ $0.bufferSize = 1024; $0.bufferCount = 7 }) { h async throws in
            let parameters = try await h.os.parameters()
            #expect(parameters.bufferSize == 1024)
            #expect(parameters.bufferCount == 7)
        }
    }

    @Test func applicationInfoFollowsTheFormat() async throws {
        try await ManagerHarness.with({ $0.nodeName = "bench-7"; $0.kernelVersion = "3.7.1" }) { h async throws in
            #expect(try await h.os.applicationInfo() == "Zephyr")
            #expect(try await h.os.applicationInfo(format: "vs") == "Zephyr 3.7.1")
            #expect(try await h.os.applicationInfo(format: "a").contains("bench-7"))
            let error = await deviceError { _ = try await h.os.applicationInfo(format: "x") }
            #expect(error == .os(.invalidFormat))
            #expect(error?.description.contains("OS_MGMT_ERR_INVALID_FORMAT") == true)
        }
    }

    @Test func bootloaderInfoHasNameAndMode() async throws {
        try await ManagerHarness.with { h async throws in
            let info = try await h.os.bootloaderInfo()
            #expect(info == BootloaderInfo(name: "MCUboot", mode: 3, noDowngrade: false))
            #expect(info.bootloaderMode == .swapUsingMove)
            #expect(info.bootloaderMode?.supportsRevert == true)
        }
        try await ManagerHarness.with({ $0.bootloaderMode = .overwriteOnly; $0.preventsDowngrade = true }) { h async throws in
            let info = try await h.os.bootloaderInfo()
            #expect(info == BootloaderInfo(name: "MCUboot", mode: 2, noDowngrade: true))
            #expect(info.bootloaderMode == .overwriteOnly)
        }
    }
}
