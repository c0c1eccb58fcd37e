import CBOR
import SMP
import SMPTestSupport
import SMPTestTraits
import Testing

@Suite("SMPClient over LoopbackTransport: in-flight window and cancellation", .scaledTimeLimit(minutes: 1))
struct SMPClientWindowTests {
    // MARK: - In-flight window

    @Test("8 requests in flight, answered in reverse and in shuffled order, each get their own response")
    func eightInFlightOutOfOrder() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, window: 8)
            let device = await f.device()
            var rng = SeededRandom(seed: 0x5eed)
            for round in 0..<2 {
                let tasks = (0..<8).map { i in
                    let text = "round \(round) request \(i)"
                    return clock.throwingTask { (text, try await echo(f.client, text)) }
                }
                let received = try await device.waitForRequests(8 * (round + 1))
                let batch = Array(received.indices.suffix(8))
                #expect(await device.outstanding == 8)
                #expect(Set(batch.map { received[$0].header.sequence }).count == 8)
                let order = round == 0 ? Array(batch.reversed()) : batch.shuffled(using: &rng)
                for index in order {
                    await device.respond(to: index, with: .textMap(["r": .text(echoText(received[index]) ?? "?")]))
                }
                for task in tasks {
                    let (sent, reply) = try await task.value
                    #expect(reply == sent)
                }
            }
            #expect(await device.maximumOutstanding == 8)
        }
    }

    @Test("with a window of 2 the device never sees more than 2 requests outstanding")
    func windowOfTwo() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, window: 2)
            let device = await f.device()
            let total = 10
            // Answers the oldest request whenever 2 are outstanding (or the last one is), after a
            // pause in which a client that ignored its window would send more.
            let responder = clock.throwingTask {
                var next = 0
                while next < total {
                    try await device.waitUntil { $0.outstanding >= 2 || ($0.received.count == total && $0.outstanding > 0) }
                    try await clock.sleep(for: .milliseconds(5))
                    let request = await device.received[next]
                    await device.respond(to: next, with: .textMap(["r": .text(echoText(request) ?? "?")]))
                    next += 1
                }
            }
            let tasks = (0..<total).map { i in clock.throwingTask { ("request \(i)", try await echo(f.client, "request \(i)")) } }
            for task in tasks {
                let (sent, reply) = try await task.value
                #expect(reply == sent)
            }
            try await responder.value
            #expect(await device.received.count == total)
            #expect(await device.maximumOutstanding == 2)
        }
    }

    @Test("a narrowed window (device out of buffers) holds requests back, then widens again as answers come")
    func windowNarrowsAndWidens() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, window: 4)
            // The device refuses its first request for lack of a buffer (MGMT_ERR_ENOMEM), then
            // echoes; the session narrows its window on the refusal and resends after a back-off.
            _ = await f.device { request, arrival in
                arrival == 0 ? .payload(.textMap(["rc": .unsigned(2)])) : await echoHandler(request, arrival)
            }
            #expect(try await echo(f.client, "refused") == "refused")
            #expect(await f.client.window == 1)
            for i in 0..<(32 + 64) { _ = try await echo(f.client, "n\(i)") }
            // Widened once after 64 answers (the probe interval doubled from 32 on narrowing).
            #expect(await f.client.window == 2)
            await f.client.setMaximumInFlight(4)
            #expect(await f.client.window == 4)
        }
    }

    @Test("a burst of refusals (MGMT_ERR_ENOMEM answers) narrows the window once, to the requests sent before the first refused one")
    func refusalBurstNarrowsOnce() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, window: 8)
            let device = await f.device { _, _ in .ignore }
            let noMemory = CBORValue.textMap(["rc": .unsigned(2)])
            var sent: [SMPSentRequest] = []
            for _ in 0..<8 {
                sent.append(try await f.client.submit(.write, group: .os, command: 0, payload: [0xa0], retryPolicy: .doNotResend) { _ in })
            }
            // The device holds four and refuses the other four; an answer to one it holds comes
            // between the refusals and does not make the later ones narrow the window further.
            _ = try await device.waitForRequests(8)
            await device.respond(to: 4, with: noMemory)
            await device.respond(to: 0, with: .map([]))
            for index in 5..<8 { await device.respond(to: index, with: noMemory) }
            try await clock.sleep(for: .milliseconds(1))
            #expect(await f.client.window == 4)
            // A request sent under the narrowed window and refused says the device holds fewer still.
            _ = try await f.client.submit(.write, group: .os, command: 0, payload: [0xa0], retryPolicy: .doNotResend) { _ in }
            _ = try await device.waitForRequests(9)
            await device.respond(to: 8, with: noMemory)
            try await clock.sleep(for: .milliseconds(1))
            #expect(await f.client.window == 3)
            // Other device errors leave the window alone.
            await device.respond(to: 1, with: .textMap(["rc": .unsigned(3)]))
            try await clock.sleep(for: .milliseconds(1))
            #expect(await f.client.window == 3)
            await f.client.close()
        }
    }

    // MARK: - Cancellation

    @Test("a cancelled request stops waiting with .cancelled and the client keeps working")
    func cancellation() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock)
            let device = await f.device()
            let waiting = clock.throwingTask { try await echo(f.client, "never answered") }
            try await device.waitForRequests(1)
            waiting.cancel()
            let result = await waiting.result
            #expect(throws: SMPError.self) { try result.get() }
            #expect(clock.now.offset < .seconds(30))

            // A late answer to the cancelled request is ignored; the next request gets its own.
            await device.respond(to: 0, with: .textMap(["r": .text("late")]))
            let next = clock.throwingTask { try await echo(f.client, "next") }
            let received = try await device.waitForRequests(2)
            #expect(received[1].header.sequence != received[0].header.sequence)
            await device.respond(to: 1, with: .textMap(["r": .text(echoText(received[1]) ?? "?")]))
            #expect(try await next.value == "next")
        }
    }

    @Test("a request cancelled while it waits for a window slot never reaches the device")
    func cancellationWhileQueued() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock)
            let device = await f.device()
            let first = clock.throwingTask { try await echo(f.client, "first") }
            try await device.waitForRequests(1)
            let queued = clock.throwingTask { try await echo(f.client, "queued") }
            try await clock.sleep(for: .milliseconds(20))
            queued.cancel()
            let queuedResult = await queued.result
            #expect(throws: SMPError.self) { try queuedResult.get() }
            await device.respond(to: 0, with: .textMap(["r": .text("first")]))
            #expect(try await first.value == "first")
            let third = clock.throwingTask { try await echo(f.client, "third") }
            let received = try await device.waitForRequests(2)
            #expect(received.compactMap(echoText) == ["first", "third"])
            await device.respond(to: 1, with: .textMap(["r": .text("third")]))
            #expect(try await third.value == "third")
        }
    }

    @Test("a request cancelled just as a window slot frees up passes the slot on to the next one queued")
    func cancellationAtWakeUp() async throws {
        // Window 1: A in flight, B and C queued. A's answer frees the slot for B, and B is cancelled
        // at that moment; C must get the slot.
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock)
            let device = await f.device()
            let a = clock.throwingTask { try await echo(f.client, "A") }
            try await device.waitForRequests(1)
            let b = clock.throwingTask { try await echo(f.client, "B") }
            let c = clock.throwingTask { try await echo(f.client, "C") }
            try await clock.sleep(for: .milliseconds(2))
            await device.respond(to: 0, with: .textMap(["r": .text("A")]))
            b.cancel()
            #expect(try await a.value == "A")
            _ = await b.result
            var answered = 1
            while true {
                let received = try await device.waitForRequests(answered + 1, limit: .seconds(5))
                let request = received[answered]
                await device.respond(to: answered, with: .textMap(["r": .text(echoText(request) ?? "?")]))
                answered += 1
                if echoText(request) == "C" {
                    #expect(try await c.value == "C")
                    break
                }
            }
        }
    }
}
