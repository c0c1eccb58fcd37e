import CBOR
import SMP
import SMPTestSupport
import SMPTestTraits
import Testing

/// An answer that arrived but is malformed ends its request at once as an invalid response
/// (reliability issue, defect 8), instead of being dropped so that the request times out after
/// every retry. Bytes that answer no request in flight are still dropped.
@Suite("Malformed answers end their request at once", .scaledTimeLimit(minutes: 1))
struct MalformedAnswerTests {
    /// The answer to `request` with a header that matches it but claims `declared` payload bytes.
    static func lying(_ request: SMPPacket, declared: UInt16, payload: [UInt8]) -> [UInt8] {
        var header = request.header
        header.operation = request.header.operation.response
        header.length = declared
        return header.bytes + payload
    }

    static let lies: [(declared: UInt16, payload: [UInt8])] = [(100, [0xa0]), (0, [0xa0, 0xa0])]

    @Test("a header claiming more or fewer bytes than follow", arguments: lies)
    func lyingLength(declared: UInt16, payload: [UInt8]) async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, timeout: .seconds(5), retries: 3)
            let device = await f.device { request, _ in .raw(Self.lying(request, declared: declared, payload: payload)) }
            let started = clock.now
            do {
                _ = try await echo(f.client, "hello")
                Issue.record("a malformed answer was taken")
            } catch SMPError.invalidResponse(let why) {
                #expect(why.contains("malformed"))
                #expect(why.contains("payload bytes"))
            }
            // At once: no timeout passed, and the request was sent once.
            #expect(clock.now - started < .seconds(5))
            #expect(await device.received.count == 1)
        }
    }

    @Test("a malformed packet for another sequence number is dropped; the right answer still counts")
    func malformedForAnotherRequest() async throws {
        try await virtualTime { clock async throws in
            let f = ClientFixture(clock: clock, timeout: .seconds(5), retries: 0)
            let loopback = f.transport.device
            _ = await f.device { request, _ in
                var header = request.header
                header.sequence &+= 1
                header.operation = request.header.operation.response
                header.length = 50
                // A lying packet nobody waits for, then the true answer.
                loopback.respond(header.bytes + [0xa0])
                return .payload(.textMap(["r": .text("hello")]))
            }
            #expect(try await echo(f.client, "hello") == "hello")
        }
    }
}
