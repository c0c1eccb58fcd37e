import CBOR
import SMP
import SMPTestSupport
import Testing

func echoText(_ packet: SMPPacket) -> String? {
    (try? packet.decodedPayload())?["d"]?.textValue
}

/// An echo through the client's raw path (resent on timeouts, as echo is idempotent).
func echo(_ client: SMPClient, _ text: String) async throws -> String {
    try await client.request(.write, group: .os, command: 0, payload: .textMap(["d": .text(text)]), retryPolicy: .resend)["r"]?.textValue ?? "?"
}

/// A device handler that echoes `{"d": x}` as `{"r": x}`.
let echoHandler: ScriptedDevice.Handler = { request, _ in
    let value = try? request.decodedPayload()
    return .payload(.textMap(["r": value?["d"] ?? .null]))
}

/// A client and a scripted device on one loopback, on virtual time.
struct ClientFixture {
    let transport: LoopbackTransport
    let client: SMPClient
    let clock: SMPClock

    init(clock: SMPClock, timeout: Duration = .seconds(30), retries: Int = 0, window: Int = 1, version: SMPVersion = .v2, packetSize: Int = 2048) {
        self.clock = clock
        transport = LoopbackTransport(maximumPacketSize: packetSize)
        client = SMPClient(
            transport: transport, configuration: .init(version: version, timeout: timeout, retries: retries, maximumInFlight: window), clock: clock
        )
    }

    func device(handler: ScriptedDevice.Handler? = nil) async -> ScriptedDevice {
        await ScriptedDevice.started(transport, clock: clock, handler: handler)
    }
}

/// Runs `body` on a fresh virtual runtime.
func virtualTime<T>(_ body: (SMPClock) async throws -> T) async throws -> T {
    try await VirtualRuntime().run(body)
}

@Suite("SMPClient over LoopbackTransport", .timeLimit(.minutes(1)))
struct SMPClientTests {
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
            _ = await f.device(handler: echoHandler)
            #expect(try await echo(f.client, "a") == "a")
            await f.client.deviceHadNoRoom()
            #expect(await f.client.window == 1)
            for i in 0..<(32 + 64) { _ = try await echo(f.client, "n\(i)") }
            // Widened once after 64 answers (the probe interval doubled from 32 on narrowing).
            #expect(await f.client.window == 2)
            await f.client.setMaximumInFlight(4)
            #expect(await f.client.window == 4)
        }
    }

    @Test("a burst of refusals narrows the window once, to the requests sent before the first refused one")
    func refusalBurstNarrowsOnce() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, window: 8)
            _ = await f.device { _, _ in .ignore }
            var sent: [SMPSentRequest] = []
            for _ in 0..<8 {
                sent.append(try await f.client.submit(.write, group: .os, command: 0, payload: [0xa0], retryPolicy: .doNotResend) { _ in })
            }
            // The device held four and refused the other four: the refusals arrive together (each
            // finishes its request), then the engine reports each of them.
            for refused in sent[4...] { await f.client.cancel(refused) }
            for refused in sent[4...] { await f.client.deviceHadNoRoom(refused: refused) }
            #expect(await f.client.window == 4)
            // A request sent under the narrowed window and refused says the device holds fewer still.
            await f.client.cancel(sent[0])
            let later = try await f.client.submit(.write, group: .os, command: 0, payload: [0xa0], retryPolicy: .doNotResend) { _ in }
            await f.client.cancel(later)
            await f.client.deviceHadNoRoom(refused: later)
            #expect(await f.client.window == 3)
            await f.client.close()
        }
    }

    // MARK: - Timeouts and retries

    @Test("a dropped response is resent with the same seq and bytes, and the answer to the resend completes it")
    func resendAfterDrop() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, timeout: .milliseconds(50), retries: 2)
            let device = await f.device { request, arrival in
                arrival == 0 ? .ignore : .payload(.textMap(["r": .text(echoText(request) ?? "?")]))
            }
            #expect(try await echo(f.client, "again") == "again")
            #expect(clock.now.offset == .milliseconds(50))
            // Nothing more is sent once the answer arrived.
            try await clock.sleep(for: .seconds(10))
            let bytes = await device.receivedBytes
            #expect(bytes.count == 2)
            #expect(bytes.first == bytes.last)
        }
    }

    @Test("a request never answered throws SMPError.timeout after 1 + retries identical attempts, at the deadline")
    func timeoutAfterRetries() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, timeout: .milliseconds(50), retries: 2)
            let device = await f.device { _, _ in .ignore }
            do {
                _ = try await f.client.transceive(.read, group: .image, command: 0, payload: [0xa0], retryPolicy: .resend)
                Issue.record("an unanswered request succeeded")
            } catch SMPError.timeout(let group, let command, let attempts) {
                #expect(group == .image)
                #expect(command == 0)
                #expect(attempts == 3)
            }
            #expect(clock.now.offset == .milliseconds(150))
            let bytes = await device.receivedBytes
            #expect(bytes.count == 3)
            #expect(Set(bytes).count == 1)
            #expect(bytes.first == Hex.bytes("08 00 00 01 00 01 00 00 a0"))

            // Per-request options override the configuration; the window slot was released.
            do {
                _ = try await f.client.transceive(
                    .read, group: .os, command: 6, payload: [0xa0], retryPolicy: .resend, options: SMPRequestOptions(timeout: .milliseconds(20), retries: 0))
                Issue.record("an unanswered request succeeded")
            } catch SMPError.timeout(_, _, let attempts) {
                #expect(attempts == 1)
            }
            #expect(await device.received.last?.header.sequence == 1)
        }
    }

    @Test("a request that is not idempotent is never resent: one attempt, then a timeout")
    func notIdempotentNeverResent() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, timeout: .seconds(5), retries: 5)
            let device = await f.device { _, _ in .ignore }
            do {
                _ = try await f.client.exchange(.write, group: .os, command: 5)  // reset: writes are not resent by default
                Issue.record("an unanswered reset succeeded")
            } catch SMPError.timeout(_, _, let attempts) {
                #expect(attempts == 1)
            }
            #expect(await device.receivedBytes.count == 1)
            #expect(clock.now.offset == .seconds(5))
        }
    }

    @Test("a persistent request resends until its deadline, not a fixed count")
    func persistentUntilDeadline() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, timeout: .seconds(1), retries: 0)
            // The device answers the 25th copy only: far more than any retry count, within the deadline.
            let device = await f.device { request, arrival in
                arrival < 24 ? .ignore : .payload(.textMap(["r": .text(echoText(request) ?? "?")]))
            }
            let reply = try await f.client.request(
                .write, group: .os, command: 0, payload: .textMap(["d": .text("slow")]), retryPolicy: .resend,
                options: .persistent(for: .seconds(60)))
            #expect(reply["r"] == .text("slow"))
            #expect(await device.receivedBytes.count == 25)
            #expect(clock.now.offset == .seconds(24))
        }
    }

    @Test("busy and out-of-memory answers are asked again with back-off within the deadline")
    func busyRetried() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, timeout: .seconds(5), retries: 2)
            let device = await f.device { request, arrival in
                arrival < 3 ? .payload(.textMap(["rc": .unsigned(arrival == 1 ? 2 : 10)])) : .payload(.textMap(["r": .text(echoText(request) ?? "?")]))
            }
            let reply212 = try await echo(f.client, "busy"); #expect(reply212 == "busy")
            #expect(await device.receivedBytes.count == 4)
            #expect(clock.now.offset == .milliseconds(25 + 50 + 100))
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

    // MARK: - Sequence numbers

    @Test("seq counts up and wraps 255 → 0 over 300 sequential requests")
    func sequenceWraps() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock)
            let device = await f.device(handler: echoHandler)
            for i in 0..<300 {
                let reply302 = try await echo(f.client, "n\(i)"); #expect(reply302 == "n\(i)")
            }
            let sequences = await device.received.map(\.header.sequence)
            #expect(sequences == (0..<300).map { UInt8($0 % 256) })
        }
    }

    @Test("responses with an unexpected seq, another command, a request op, or duplicates are ignored")
    func unexpectedResponsesIgnored() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, window: 2)
            let device = await f.device()
            let a = clock.throwingTask { try await echo(f.client, "A") }
            let requestA = try await device.waitForRequests(1)[0].header
            func reply(_ header: SMPHeader, _ text: String) -> [UInt8] {
                ScriptedDevice.response(to: header, payload: .textMap(["r": .text(text)]))
            }
            var wrongSeq = requestA
            wrongSeq.sequence &+= 7
            device.send(reply(wrongSeq, "wrong seq"))
            var wrongGroup = requestA
            wrongGroup.group = SMPGroup.image.rawValue
            device.send(reply(wrongGroup, "wrong group"))
            var wrongCommand = requestA
            wrongCommand.command = 9
            device.send(reply(wrongCommand, "wrong command"))
            var asRequest = requestA
            asRequest.operation = .read
            let body = CBORWriter().encode(.textMap(["r": .text("a request")]))
            asRequest.length = UInt16(body.count)
            device.send(asRequest.bytes + body)
            device.send([0x0b, 0x00])
            device.send(reply(requestA, "A"))
            #expect(try await a.value == "A")

            let b = clock.throwingTask { try await echo(f.client, "B") }
            let requestB = try await device.waitForRequests(2)[1].header
            #expect(requestB.sequence != requestA.sequence)
            device.send(reply(requestA, "A again"))
            device.send(reply(requestB, "B"))
            #expect(try await b.value == "B")
        }
    }

    // MARK: - Link failures

    @Test("a disconnect fails every request in flight with a transport error; reconnect brings the session back")
    func disconnect() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, window: 4)
            let device = await f.device()
            let tasks = (0..<3).map { i in clock.throwingTask { try await echo(f.client, "r\(i)") } }
            try await device.waitForRequests(3)
            f.transport.device.disconnect(reason: "link lost")
            for task in tasks {
                do {
                    _ = try await task.value
                    Issue.record("a request survived the disconnect")
                } catch SMPError.transport(let error) {
                    #expect(error == .disconnected(reason: "link lost"))
                }
            }
            do {
                _ = try await echo(f.client, "down")
                Issue.record("a request succeeded on a down link")
            } catch SMPError.transport(let error) {
                #expect(error == .notConnected)
            }
            // The device refuses connections for 2 s: the session's reconnect backs off until then.
            f.transport.device.acceptsConnections = false
            let reopen = clock.task {
                try? await clock.sleep(for: .seconds(2))
                f.transport.device.acceptsConnections = true
            }
            try await f.client.reconnect()
            await reopen.value
            #expect(clock.now.offset >= .seconds(2))
            let again = clock.throwingTask { try await echo(f.client, "up") }
            let received = try await device.waitForRequests(4)
            await device.respond(to: 3, with: .textMap(["r": .text(echoText(received[3]) ?? "?")]))
            #expect(try await again.value == "up")
        }
    }

    @Test("reconnect gives up at the policy's deadline with a transport error")
    func reconnectDeadline() async throws {
        try await virtualTime { clock async throws in
            let transport = LoopbackTransport()
            let client = SMPClient(
                transport: transport, configuration: .init(reconnect: SMPReconnectPolicy(timeout: .seconds(10))), clock: clock)
            transport.device.acceptsConnections = false
            transport.device.disconnect()
            do {
                try await client.reconnect()
                Issue.record("reconnected to a device that refuses connections")
            } catch SMPError.transport {
                #expect(clock.now.offset <= .seconds(10))
                #expect(clock.now.offset >= .seconds(8))
            }
        }
    }

    // MARK: - Typed requests and device errors

    @Test("request throws the group's typed error for err, in definite and indefinite form")
    func groupErrorThrown() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock)
            let writers = [CBORWriter(), CBORWriter(sortsMapKeys: false, usesIndefiniteLengthContainers: true)]
            let device = await f.device()
            for writer in writers {
                let task = clock.throwingTask { try await f.client.request(.write, group: .image, command: 0, payload: .textMap(["hash": .bytes([1, 2])])) }
                let received = try await device.waitForRequests(writer.usesIndefiniteLengthContainers ? 2 : 1)
                await device.respond(to: received.count - 1, with: .textMap(["err": .textMap(["group": .unsigned(1), "rc": .unsigned(8)])]), writer: writer)
                do {
                    _ = try await task.value
                    Issue.record("a group error was taken as success")
                } catch SMPError.device(let error) {
                    #expect(error == .image(.hashNotFound))
                    #expect("\(SMPError.device(error))".contains("IMG_MGMT_ERR_HASH_NOT_FOUND"))
                }
            }
        }
    }

    @Test("request throws .status(.notSupported) for rc 8, and returns the map on success")
    func statusThrown() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock)
            _ = await f.device { request, _ in
                request.header.command == 3 ? .payload(.textMap(["rc": .unsigned(8)])) : .payload(.textMap(["r": .text("ok"), "rc": .unsigned(0)]))
            }
            do {
                _ = try await f.client.request(.read, group: .os, command: 3)
                Issue.record("rc 8 was taken as success")
            } catch SMPError.device(let error) {
                #expect(error == .status(.notSupported, reason: nil))
            }
            #expect(try await f.client.request(.read, group: .os, command: 0)["r"] == .text("ok"))
            let raw = try await f.client.transceive(.read, group: .os, command: 3, payload: [0xa0], retryPolicy: .resend)
            #expect(try raw.decodedPayload() == .textMap(["rc": .unsigned(8)]))
        }
    }

    @Test("a malformed answer is reported at once as an invalid response, not as a timeout after retries")
    func malformedAnswerAtOnce() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, timeout: .seconds(5), retries: 2)
            _ = await f.device { _, _ in .payload(.textMap(["err": .textMap(["group": .unsigned(70_000), "rc": .negative(4)])])) }
            do {
                _ = try await echo(f.client, "x")
                Issue.record("a malformed err was taken as success")
            } catch SMPError.invalidResponse(let why) {
                #expect(why.contains("group"))
            }
            #expect(clock.now.offset == .zero)
        }
    }

    @Test("a v2 request refused with rc 13 is asked again in v1, and the session stays on v1")
    func fallbackToV1() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock)
            let device = await f.device { request, _ in
                if request.header.version == .v2 { return .payload(.textMap(["rc": .unsigned(13)])) }
                return .payload(.textMap(["r": .text(echoText(request) ?? "?")]))
            }
            let reply469 = try await echo(f.client, "old device"); #expect(reply469 == "old device")
            let received = await device.received
            #expect(received.map(\.header.version) == [.v2, .v1])
            #expect(received[0].payload == received[1].payload)
            #expect(await f.client.configuration.version == .v1)
            let reply474 = try await echo(f.client, "again"); #expect(reply474 == "again")
            #expect(await device.received.map(\.header.version) == [.v2, .v1, .v1])
        }
    }

    @Test("a request larger than the transport's packet limit is refused before sending")
    func requestTooLarge() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, packetSize: 64)
            let device = await f.device()
            do {
                _ = try await f.client.transceive(.write, group: .fs, command: 0, payload: Array(repeating: 0, count: 57), retryPolicy: .resend)
                Issue.record("an oversized request was sent")
            } catch SMPError.requestTooLarge(let size, let limit) {
                #expect(size == 65)
                #expect(limit == 64)
            }
            #expect(await device.received.isEmpty)
        }
    }

    @Test("negotiation reads buf_size and bounds requests by it; impossible values are invalid responses", arguments: [
        (2048, 4, true), (0, 4, false), (10, 4, false), (512, 0, false),
    ])
    func negotiation(size: Int, count: Int, valid: Bool) async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, packetSize: 4096)
            _ = await f.device { _, _ in .payload(.textMap(["buf_size": .int(size), "buf_count": .int(count)])) }
            do {
                let buffers = try await f.client.negotiate()
                #expect(valid)
                #expect(buffers == SMPDeviceBuffers(bufferSize: size, bufferCount: count))
                #expect(await f.client.packetLimit() == size)
            } catch SMPError.invalidResponse(let why) {
                #expect(!valid)
                #expect(why.contains("buf_"))
            }
        }
    }
}
