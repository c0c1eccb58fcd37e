import CBOR
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// The link model: buffers, overflow, faults, and what the device lets tests observe.
@Suite("Link model", .virtualTime)
struct LinkModelTests {
    func echo(_ sequence: UInt8) -> [UInt8] {
        packet(op: 2, group: 0, sequence: sequence, command: 0, payload: CBORWriter().encode(.textMap(["d": .text("x")])))
    }

    @Test("buf_count 2: a third request in flight is answered rc 2; the maximum in flight is 2")
    func overflowAnswersNoMemory() async throws {
        var c = DeviceConfiguration.testing
        c.bufferCount = 2
        try await withClosing(await RawLink.make(configuration: c, link: LinkConfiguration(latency: .milliseconds(300))), close: { await $0.close() }) { (link) async throws in
            for seq: UInt8 in 1...3 { try await link.transport.send(echo(seq)) }
            let answers = await link.inbox.take(3, window: .seconds(2))
            try #require(answers.count == 3)
            // The refusal comes first (no latency), for the third request.
            #expect(answers.first?[6] == 3)
            #expect(try payloadValue(answers[0])["rc"]?.intValue == 2)
            #expect(try answers.dropFirst().allSatisfy { try payloadValue($0)["r"]?.textValue == "x" })
            #expect(await link.device.maximumRequestsInFlight == 2)
            #expect(await link.device.requestLog.contains { $0.outcome == .status(2) })
        }
    }

    @Test("buf_count 2 with the drop policy: the third request is not answered")
    func overflowDrops() async throws {
        var c = DeviceConfiguration.testing
        c.bufferCount = 2
        try await withClosing(await RawLink.make(configuration: c, link: LinkConfiguration(latency: .milliseconds(200), bufferOverflow: .drop)), close: { await $0.close() }) { (link) async throws in
            for seq: UInt8 in 1...3 { try await link.transport.send(echo(seq)) }
            let answers = await link.inbox.take(3, window: .milliseconds(1500))
            #expect(answers.map { $0[6] }.sorted() == [1, 2])
            #expect(await link.device.requestLog.contains { $0.outcome == .dropped("no free buffer") })
        }
    }

    @Test("a client pipelining within buf_count − 1 never overflows and sees every answer")
    func pipelinedClient() async throws {
        var c = DeviceConfiguration.testing
        c.bufferCount = 4
        try await withClosing(await Fixture.make(configuration: c, link: LinkConfiguration(latency: .milliseconds(20)), maximumInFlight: 3), close: { await $0.close() }) { (f) async throws in
            try await withThrowingTaskGroup(of: String?.self) { group in
                for i in 0..<12 {
                    group.addTask { try await f.request(.write, .os, 0, .textMap(["d": .text("\(i)")]))["r"]?.textValue }
                }
                var answers = Set<String>()
                for try await answer in group { if let answer { answers.insert(answer) } }
                #expect(answers.count == 12)
            }
            let maximum = await f.device.maximumRequestsInFlight
            #expect(maximum >= 2 && maximum <= 3)
        }
    }

    @Test("drop faults are seeded: 100 % drops everything, and the same seed drops the same requests")
    func seededDrops() async throws {
        var faults = FaultConfiguration()
        faults.dropPercent = 100
        faults.directions = .requests
        let link = await RawLink.make()
        await link.device.setFaults(faults)
        #expect(try await link.exchange(echo(1), window: .milliseconds(100)).isEmpty)
        await link.close()
        func pattern(seed: UInt64) async throws -> [UInt8] {
            var f = FaultConfiguration()
            f.dropPercent = 50
            f.seed = seed
            f.directions = .requests
            let l = await RawLink.make()
            await l.device.setFaults(f)
            for seq: UInt8 in 1...20 { try await l.transport.send(echo(seq)) }
            while true {
                let received = await l.device.packetsReceived
                let busy = await l.device.requestsInFlight
                if received >= 20 && busy == 0 { break }
                try await VirtualRuntime.currentClock.sleep(for: .milliseconds(5))
            }
            let answered = await l.inbox.take(20, window: .milliseconds(500)).map { $0[6] }
            await l.close()
            return answered
        }
        let a = try await pattern(seed: 42)
        let b = try await pattern(seed: 42)
        #expect(a == b)
        #expect(a.count > 0 && a.count < 20)
    }

    @Test("duplicate faults deliver a request twice: an upload chunk's copy gets the expected offset")
    func duplicates() async throws {
        var faults = FaultConfiguration()
        faults.duplicatePercent = 100
        faults.directions = .requests
        try await withClosing(await Fixture.make(faults: faults), close: { await $0.close() }) { (f) async throws in
            let image = MCUbootImageMaker.make(version: ImageVersion(2, 0, 0), payloadSize: 6000)
            let r = try await f.upload(image)
            #expect(r["match"]?.boolValue == true)
            #expect(await f.device.slotContents(image: 0, slot: 1) == image)
            #expect(await f.device.requestsProcessed >= 2 * 6)
        }
    }

    @Test("reorder and delay faults still let a retrying client finish")
    func reorderAndDelay() async throws {
        var faults = FaultConfiguration()
        faults.reorderPercent = 20
        faults.delayPercent = 20
        faults.delay = .milliseconds(30)
        try await withClosing(await Fixture.make(faults: faults, timeout: .milliseconds(250), retries: 5), close: { await $0.close() }) { (f) async throws in
            let image = MCUbootImageMaker.make(version: ImageVersion(2, 0, 0), payloadSize: 10_000)
            let r = try await f.upload(image)
            #expect(r["off"]?.intValue == image.count)
            #expect(await f.device.slotContents(image: 0, slot: 1) == image)
        }
    }

    @Test("the device is silent while it reboots; the request log records it")
    func silentWhileRebooting() async throws {
        var c = DeviceConfiguration.testing
        c.bootDuration = .milliseconds(300)
        try await withClosing(await RawLink.make(configuration: c), close: { await $0.close() }) { (link) async throws in
            await link.device.powerCycle()
            #expect(await link.device.isRebooting)
            #expect(try await link.exchange(echo(9), window: .milliseconds(100)).isEmpty)
            await link.device.waitUntilOnline()
            #expect(try await link.exchange(echo(10)).count == 1)
            #expect(await link.device.requestLog.contains { $0.sequence == 9 && $0.outcome == .dropped("rebooting") })
            #expect(await link.device.bootCount == 2)
        }
    }

    @Test("bandwidth and flash write time slow the exchange down but change nothing else")
    func bandwidthAndFlash() async throws {
        let link = LinkConfiguration(bandwidth: 200_000, flashWriteTimePerByte: .nanoseconds(200))
        try await withClosing(await Fixture.make(link: link), close: { await $0.close() }) { (f) async throws in
            let image = MCUbootImageMaker.make(version: ImageVersion(2, 0, 0), payloadSize: 8000)
            let r = try await f.upload(image)
            #expect(r["match"]?.boolValue == true)
        }
    }
}
