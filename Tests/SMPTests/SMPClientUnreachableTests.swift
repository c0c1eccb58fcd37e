import CBOR
import SMP
import SMPTestSupport
import SMPTestTraits
import Synchronization
import Testing

/// The network's refusals (`SMPTransportEvent.unreachable`): before the device ever answered they
/// end the requests at once; after, they are lost packets (a device rebooting), which the timers
/// ride out (issue 32).
@Suite("SMPClient and refused packets", .scaledTimeLimit(minutes: 1))
struct SMPClientUnreachableTests {
    @Test("before any answer, a refusal ends the request at once with transport(.unreachable), not after the timeouts")
    func refusalBeforeAnyAnswer() async throws {
        try await virtualTime { clock async throws in
            let transport = RefusingTransport(answering: false)
            let client = SMPClient(transport: transport, configuration: .init(timeout: .seconds(5), retries: 2), clock: clock)
            try await transport.connect()
            let start = clock.now
            do {
                _ = try await echo(client, "x")
                Issue.record("a refused request succeeded")
            } catch SMPError.transport(.unreachable(let reason)) {
                #expect(reason == RefusingTransport.reason)
            } catch {
                Issue.record("expected transport(.unreachable), got \(error)")
            }
            #expect(clock.now == start, "the request waited for its timeouts")
            await client.close()
        }
    }

    @Test("after an answer, a refusal is a lost packet: the request is resent on its timer and answered once the device is back")
    func refusalAfterAnAnswer() async throws {
        try await virtualTime { clock async throws in
            let transport = RefusingTransport(answering: true)
            let client = SMPClient(transport: transport, configuration: .init(timeout: .seconds(1), retries: 3), clock: clock)
            try await transport.connect()
            #expect(try await echo(client, "first") == "first")
            // The device reboots: the next two packets are refused, the third answered.
            transport.refuseNext(2)
            let start = clock.now
            #expect(try await echo(client, "second") == "second")
            #expect(clock.now - start == .seconds(2), "answered on the second resend")
            await client.close()
        }
    }
}

/// A transport whose device answers echoes, or whose network refuses packets (as ICMP port
/// unreachable does): each refused send is reported as `.unreachable`.
private final class RefusingTransport: SMPTransport, Sendable {
    static let reason = "127.0.0.1:9 refused the datagram"
    let events: SMPTransportEvents
    private let sink: SMPTransportEvents.Continuation
    private let state: Mutex<(answering: Bool, refusals: Int)>

    init(answering: Bool) {
        (events, sink) = SMPTransportEvents.makeStream()
        state = Mutex((answering, 0))
    }

    var maximumPacketSize: Int { 1024 }

    /// Refuses the next `count` packets.
    func refuseNext(_ count: Int) { state.withLock { $0.refusals = count } }

    func connect() async throws(SMPTransportError) { sink.yield(.connected) }

    func send(_ packet: [UInt8]) async throws(SMPTransportError) {
        let answer = state.withLock { s -> Bool in
            if s.refusals > 0 {
                s.refusals -= 1
                return false
            }
            return s.answering
        }
        guard answer, let request = try? SMPPacket(decoding: packet) else {
            sink.yield(.unreachable(reason: Self.reason))
            return
        }
        let text = echoText(request) ?? ""
        sink.yield(.received(ScriptedDevice.response(to: request.header, payload: .textMap(["r": .text(text)]))))
    }

    func close() async { sink.finish() }
}
