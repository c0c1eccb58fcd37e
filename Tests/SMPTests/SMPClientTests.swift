import CBOR
import SMP
import SMPTestSupport
import SMPTestTraits
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

@Suite("SMPClient over LoopbackTransport", .scaledTimeLimit(minutes: 1))
struct SMPClientTests {
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
