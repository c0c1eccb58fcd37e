import SMPTestSupport
import CBOR
import SMP
import Testing

struct Echo: Codable, Equatable {
    var d: String
}

struct EchoReply: Codable, Equatable {
    var r: String
}

/// A deterministic shuffle (so that a failure reproduces).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        // SplitMix64.
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

func echoText(_ packet: SMPPacket) -> String? {
    (try? packet.decodedPayload())?["d"]?.textValue
}

/// The request a test is waiting on, run in its own task.
func echo(_ client: SMPClient, _ text: String, group: SMPGroup = .os) async throws -> String {
    try await client.request(.write, group: group, command: 0, body: Echo(d: text), as: EchoReply.self).r
}

@Suite("SMPClient over LoopbackTransport", .timeLimit(.minutes(1)))
struct SMPClientTests {
    func makeClient(
        timeout: Duration = .seconds(30), retries: Int = 0, window: Int = 1, version: SMPVersion = .v2
    ) -> (LoopbackTransport, SMPClient) {
        let transport = LoopbackTransport()
        let client = SMPClient(
            transport: transport,
            configuration: .init(version: version, timeout: timeout, retries: retries, maximumInFlight: window)
        )
        return (transport, client)
    }

    // MARK: - In-flight window

    @Test("8 requests in flight, answered in reverse and in shuffled order, each get their own response")
    func eightInFlightOutOfOrder() async throws {
        let (transport, client) = makeClient(window: 8)
        let device = await ScriptedDevice.started(transport)
        var rng = SeededGenerator(state: 0x5eed)
        for round in 0..<2 {
            try await withThrowingTaskGroup(of: (String, String).self) { group in
                for i in 0..<8 {
                    let text = "round \(round) request \(i)"
                    group.addTask { (text, try await echo(client, text)) }
                }
                // The device sees all 8 outstanding before it answers any.
                let received = try await device.waitForRequests(8 * (round + 1))
                let batch = Array(received.indices.suffix(8))
                #expect(await device.outstanding == 8)
                #expect(Set(batch.map { received[$0].header.sequence }).count == 8)
                let order = round == 0 ? Array(batch.reversed()) : batch.shuffled(using: &rng)
                for index in order {
                    await device.respond(to: index, with: .textMap(["r": .text(echoText(received[index]) ?? "?")]))
                }
                var answers = 0
                for try await (sent, reply) in group {
                    #expect(reply == sent)
                    answers += 1
                }
                #expect(answers == 8)
            }
        }
        #expect(await device.maximumOutstanding == 8)
    }

    @Test("with a window of 2 the device never sees more than 2 requests outstanding")
    func windowOfTwo() async throws {
        let (transport, client) = makeClient(window: 2)
        let device = await ScriptedDevice.started(transport)
        let total = 10
        // Answers the oldest request whenever 2 are outstanding (or the last one is), after a
        // short pause in which a client that ignored its window would send more.
        let responder = Task {
            var next = 0
            while next < total {
                try await device.waitUntil { $0.outstanding >= 2 || ($0.received.count == total && $0.outstanding > 0) }
                try await Task.sleep(for: .milliseconds(5))
                let request = await device.received[next]
                await device.respond(to: next, with: .textMap(["r": .text(echoText(request) ?? "?")]))
                next += 1
            }
        }
        try await withThrowingTaskGroup(of: (String, String).self) { group in
            for i in 0..<total {
                group.addTask { ("request \(i)", try await echo(client, "request \(i)")) }
            }
            for try await (sent, reply) in group {
                #expect(reply == sent)
            }
        }
        try await responder.value
        #expect(await device.received.count == total)
        #expect(await device.maximumOutstanding == 2)
    }

    // MARK: - Timeouts and retries

    @Test("a dropped response is resent with the same seq and bytes, and the answer to the resend completes it")
    func resendAfterDrop() async throws {
        let (transport, client) = makeClient(timeout: .milliseconds(50), retries: 2)
        let device = await ScriptedDevice.started(transport) { request, arrival in
            arrival == 0 ? .ignore : .payload(.textMap(["r": .text(echoText(request) ?? "?")]))
        }
        #expect(try await echo(client, "again") == "again")
        // Nothing more is sent once the answer arrived.
        try await Task.sleep(for: .milliseconds(200))
        let bytes = await device.receivedBytes
        #expect(bytes.count == 2)
        #expect(bytes.first == bytes.last)
    }

    @Test("a request never answered throws SMPError.timeout after 1 + retries identical attempts")
    func timeoutAfterRetries() async throws {
        let (transport, client) = makeClient(timeout: .milliseconds(50), retries: 2)
        let device = await ScriptedDevice.started(transport) { _, _ in .ignore }
        do {
            _ = try await client.transceive(.read, group: .image, command: 0, payload: [0xa0])
            Issue.record("an unanswered request succeeded")
        } catch SMPError.timeout(let group, let command, let attempts) {
            #expect(group == .image)
            #expect(command == 0)
            #expect(attempts == 3)
        }
        try await device.waitForRequests(3)
        try await Task.sleep(for: .milliseconds(200))
        let bytes = await device.receivedBytes
        #expect(bytes.count == 3)
        #expect(Set(bytes).count == 1)
        #expect(bytes.first == Hex.bytes("08 00 00 01 00 01 00 00 a0"))

        // Per-request timeout and retries override the configuration; the window slot was released.
        do {
            _ = try await client.transceive(.read, group: .os, command: 6, payload: [0xa0], timeout: .milliseconds(20), retries: 0)
            Issue.record("an unanswered request succeeded")
        } catch SMPError.timeout(_, _, let attempts) {
            #expect(attempts == 1)
        }
        try await device.waitForRequests(4)
        #expect(await device.received.last?.header.sequence == 1)
    }

    // MARK: - Cancellation

    @Test("a cancelled request stops waiting with CancellationError and the client keeps working")
    func cancellation() async throws {
        let (transport, client) = makeClient(timeout: .seconds(30), retries: 0, window: 1)
        let device = await ScriptedDevice.started(transport)
        let waiting = Task { try await echo(client, "never answered") }
        try await device.waitForRequests(1)
        waiting.cancel()
        // With a 30 s timeout, a client that ignored cancellation would still be waiting here
        // (the suite's time limit ends the test) or end with SMPError.timeout instead.
        let result = await waiting.result
        #expect(throws: CancellationError.self) { try result.get() }

        // A late answer to the cancelled request is ignored; the next request gets its own.
        await device.respond(to: 0, with: .textMap(["r": .text("late")]))
        let next = Task { try await echo(client, "next") }
        try await device.waitForRequests(2)
        let received = await device.received
        let request = received[1]
        #expect(request.header.sequence != received[0].header.sequence)
        await device.respond(to: 1, with: .textMap(["r": .text(echoText(request) ?? "?")]))
        #expect(try await next.value == "next")
    }

    @Test("a request cancelled while it waits for a window slot never reaches the device")
    func cancellationWhileQueued() async throws {
        let (transport, client) = makeClient(timeout: .seconds(30), retries: 0, window: 1)
        let device = await ScriptedDevice.started(transport)
        let first = Task { try await echo(client, "first") }
        try await device.waitForRequests(1)
        let queued = Task { try await echo(client, "queued") }
        try await Task.sleep(for: .milliseconds(20))
        queued.cancel()
        let queuedResult = await queued.result
        #expect(throws: CancellationError.self) { try queuedResult.get() }
        await device.respond(to: 0, with: .textMap(["r": .text("first")]))
        #expect(try await first.value == "first")
        // The window still admits requests.
        let third = Task { try await echo(client, "third") }
        let received = try await device.waitForRequests(2)
        #expect(received.compactMap(echoText) == ["first", "third"])
        await device.respond(to: 1, with: .textMap(["r": .text("third")]))
        #expect(try await third.value == "third")
    }

    @Test("a request cancelled just as a window slot frees up passes the slot on to the next one queued")
    func cancellationAtWakeUp() async throws {
        // Window 1: A in flight, B and C queued. A's answer frees the slot for B, and B is cancelled
        // at that moment; C must get the slot. (Before the fix, C waited forever in almost every trial.)
        for trial in 0..<20 {
            let (transport, client) = makeClient(timeout: .seconds(30), retries: 0, window: 1)
            let device = await ScriptedDevice.started(transport)
            let a = Task { try await echo(client, "A") }
            try await device.waitForRequests(1)
            let b = Task { try await echo(client, "B") }
            let c = Task { try await echo(client, "C") }
            try await Task.sleep(for: .milliseconds(2))  // let B and C queue up
            await device.respond(to: 0, with: .textMap(["r": .text("A")]))
            b.cancel()
            #expect(try await a.value == "A")
            _ = await b.result  // cancelled, or answered below if it got through first
            var answered = 1
            while true {
                let received: [SMPPacket]
                do {
                    received = try await device.waitForRequests(answered + 1, limit: .seconds(5))
                } catch {
                    Issue.record("trial \(trial): request C never reached the device: \(error)")
                    c.cancel()
                    break
                }
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
        let (transport, client) = makeClient()
        let device = await ScriptedDevice.started(transport, handler: echoHandler)
        for i in 0..<300 {
            #expect(try await echo(client, "n\(i)") == "n\(i)")
        }
        let sequences = await device.received.map(\.header.sequence)
        #expect(sequences == (0..<300).map { UInt8($0 % 256) })
    }

    @Test("responses with an unexpected seq, another command, a request op, or duplicates are ignored")
    func unexpectedResponsesIgnored() async throws {
        let (transport, client) = makeClient(window: 2)
        let device = await ScriptedDevice.started(transport)
        let a = Task { try await echo(client, "A") }
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
        asRequest.operation = .read  // a request, not a response: .response would give read response
        let body = CBORWriter().encode(.textMap(["r": .text("a request")]))
        asRequest.length = UInt16(body.count)
        device.send(asRequest.bytes + body)
        device.send([0x0b, 0x00])  // not even a header
        device.send(reply(requestA, "A"))
        #expect(try await a.value == "A")

        // A duplicate of A's answer arrives while B is outstanding: B still gets its own.
        let b = Task { try await echo(client, "B") }
        let requestB = try await device.waitForRequests(2)[1].header
        #expect(requestB.sequence != requestA.sequence)
        device.send(reply(requestA, "A again"))
        device.send(reply(requestB, "B"))
        #expect(try await b.value == "B")
    }

    // MARK: - Link failures

    @Test("a disconnect fails every request in flight with a transport error")
    func disconnect() async throws {
        let (transport, client) = makeClient(window: 4)
        let device = await ScriptedDevice.started(transport)
        let tasks = (0..<3).map { i in Task { try await echo(client, "r\(i)") } }
        try await device.waitForRequests(3)
        transport.device.disconnect(reason: "link lost")
        for task in tasks {
            do {
                _ = try await task.value
                Issue.record("a request survived the disconnect")
            } catch SMPError.transport(let error) {
                #expect(error == .disconnected(reason: "link lost"))
            }
        }
        // While the link is down, sends fail at once; after reconnecting, requests work again.
        do {
            _ = try await echo(client, "down")
            Issue.record("a request succeeded on a down link")
        } catch SMPError.transport(let error) {
            #expect(error == .notConnected)
        }
        try await transport.connect()
        let again = Task { try await echo(client, "up") }
        let received = try await device.waitForRequests(4)
        await device.respond(to: 3, with: .textMap(["r": .text(echoText(received[3]) ?? "?")]))
        #expect(try await again.value == "up")
    }

    // MARK: - Typed requests and device errors

    @Test("request throws the group's typed error for err, in definite and indefinite form")
    func groupErrorThrown() async throws {
        let (transport, client) = makeClient()
        let writers = [CBORWriter(), CBORWriter(sortsMapKeys: false, usesIndefiniteLengthContainers: true)]
        let device = await ScriptedDevice.started(transport)
        for writer in writers {
            let task = Task { try await client.request(.write, group: .image, command: 0, payload: .textMap(["hash": .bytes([1, 2])])) }
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

    @Test("request throws .status(.notSupported) for rc 8, and returns the map on success")
    func statusThrown() async throws {
        let (transport, client) = makeClient()
        _ = await ScriptedDevice.started(transport) { request, _ in
            request.header.command == 3 ? .payload(.textMap(["rc": .unsigned(8)])) : .payload(.textMap(["r": .text("ok"), "rc": .unsigned(0)]))
        }
        do {
            _ = try await client.request(.read, group: .os, command: 3)
            Issue.record("rc 8 was taken as success")
        } catch SMPError.device(let error) {
            #expect(error == .status(.notSupported, reason: nil))
        }
        #expect(try await client.request(.read, group: .os, command: 0)["r"] == .text("ok"))
        // transceive hands the raw packet back whatever its status.
        let raw = try await client.transceive(.read, group: .os, command: 3, payload: [0xa0])
        #expect(try raw.decodedPayload() == .textMap(["rc": .unsigned(8)]))
    }

    @Test("a v2 request refused with rc 13 is asked again in v1, and the session stays on v1")
    func fallbackToV1() async throws {
        let (transport, client) = makeClient()
        let device = await ScriptedDevice.started(transport) { request, _ in
            if request.header.version == .v2 { return .payload(.textMap(["rc": .unsigned(13)])) }
            return .payload(.textMap(["r": .text(echoText(request) ?? "?")]))
        }
        #expect(try await echo(client, "old device") == "old device")
        let received = await device.received
        #expect(received.map(\.header.version) == [.v2, .v1])
        #expect(received[0].payload == received[1].payload)
        #expect(received[0].header.group == received[1].header.group && received[0].header.command == received[1].header.command)
        #expect(await client.configuration.version == .v1)
        #expect(try await echo(client, "again") == "again")
        #expect(await device.received.map(\.header.version) == [.v2, .v1, .v1])
    }

    @Test("a response that does not fit the typed struct is an invalidResponse naming the field")
    func invalidResponse() async throws {
        let (transport, client) = makeClient()
        _ = await ScriptedDevice.started(transport) { _, _ in .payload(.textMap(["r": .unsigned(5)])) }
        do {
            _ = try await echo(client, "x")
            Issue.record("a mistyped response decoded")
        } catch SMPError.invalidResponse(let why) {
            #expect(why.contains("r"))
        }
    }

    @Test("a request larger than the transport's packet limit is refused before sending")
    func requestTooLarge() async throws {
        let transport = LoopbackTransport(maximumPacketSize: 64)
        let client = SMPClient(transport: transport)
        let device = await ScriptedDevice.started(transport)
        do {
            _ = try await client.transceive(.write, group: .fs, command: 0, payload: Array(repeating: 0, count: 57))
            Issue.record("an oversized request was sent")
        } catch SMPError.requestTooLarge(let size, let limit) {
            #expect(size == 65)
            #expect(limit == 64)
        }
        #expect(await device.received.isEmpty)
    }
}
