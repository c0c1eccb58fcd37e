import GATT
import SMPTestTraits
import Synchronization
import Testing

/// The SOCK_SEQPACKET bearer over a real `socketpair`: PDU boundaries, flow control, closing.
@Suite("File-descriptor ATT bearer over socketpair(AF_UNIX, SOCK_SEQPACKET)")
struct FileDescriptorBearerTests {
    @Test("one send is one PDU: sizes 1 to 517 arrive whole, in order, never joined")
    func boundaries() async throws {
        let (a, b) = try FileDescriptorBearer.socketPair()
        try await guarded(cleanup: { await a.close(); await b.close() }) { () async throws in
            let sizes = [1, 2, 3, 23, 185, 247, 251, 498, 517] + (0..<200).map { 1 + ($0 * 37) % 517 }
            let sent = sizes.enumerated().map { index, size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ index) } }
            // Read while sending: the bearer reads ahead only so far, then the sender waits for the reader.
            let inbound = b.inbound
            let expected = sent.count
            let reader = Task {
                var received: [[UInt8]] = []
                for await event in inbound {
                    guard case .pdu(let pdu) = event else { break }
                    received.append(pdu)
                    if received.count == expected { break }
                }
                return received
            }
            for pdu in sent { try await a.send(pdu) }
            let received = await reader.value
            #expect(received == sent)
            await #expect(throws: ATTBearerError.pduTooLarge(size: 518, limit: 517)) { try await a.send([UInt8](repeating: 0, count: 518)) }
        }
    }

    @Test("a reader that falls behind makes sends wait, and nothing is dropped")
    func flowControl() async throws {
        let (a, b) = try FileDescriptorBearer.socketPair()
        try await guarded(cleanup: { await a.close(); await b.close() }) { () async throws in
            let total = 3000
            let sentCount = Atomic<Int>(0)
            // Fill the socket while nobody reads: sends must start to wait.
            let sender = Task {
                for index in 0..<total {
                    try await a.send([UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 400) + [UInt8(index >> 8), UInt8(index & 0xFF)])
                    sentCount.add(1, ordering: .relaxed)
                }
            }
            // Give the sender a chance to run into the full socket before reading.
            var waited = 0
            var last = -1
            while waited < 200 {
                try await Task.sleep(for: .milliseconds(10))
                let now = sentCount.load(ordering: .relaxed)
                if now == last && now < total { break }
                last = now
                waited += 1
            }
            #expect(sentCount.load(ordering: .relaxed) < total, "3000 × 402 bytes should not fit an AF_UNIX socket buffer")
            var received = 0
            for await event in b.inbound {
                guard case .pdu(let pdu) = event else { break }
                #expect(pdu.count == 402)
                #expect(Int(pdu[400]) << 8 | Int(pdu[401]) == received)
                received += 1
                if received == total { break }
            }
            try await sender.value
            #expect(received == total)
        }
    }

    @Test("closing one end ends the other's inbound with .closed; sends then fail as closed")
    func closing() async throws {
        let (a, b) = try FileDescriptorBearer.socketPair()
        try await guarded(cleanup: { await a.close(); await b.close() }) { () async throws in
            try await a.send([1, 2, 3])
            await a.close()
            var events: [ATTBearerEvent] = []
            for await event in b.inbound { events.append(event) }
            #expect(events.first == .pdu([1, 2, 3]))
            guard case .closed(let reason)? = events.last, events.count == 2 else {
                Issue.record("expected the PDU then .closed, got \(events)")
                return
            }
            #expect(reason.contains("peer closed"))
            await #expect(throws: ATTBearerError.self) { try await a.send([1]) }
            do throws(ATTBearerError) {
                try await b.send([1])
                Issue.record("a send on a closed bearer succeeded")
            } catch {
                guard case .closed = error else {
                    Issue.record("expected .closed, got \(error)")
                    return
                }
            }
        }
    }
}
