import CBOR
import SMP
import SMPTestSupport
import SMPTestTraits
import Testing

@Suite("SMPClient over LoopbackTransport: timeouts, retries and link failures", .scaledTimeLimit(minutes: 1))
struct SMPClientRetryTests {
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
            #expect(bytes.first == HexText.bytes("08 00 00 01 00 01 00 00 a0"))

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
}
