import BLEHost
import Testing

@Suite("L2CAP reassembly and LE signalling")
struct L2CAPTests {
    static func run(_ packets: [ACLDataPacket], open: [UInt16] = [1], limit: Int = 517) -> (events: [L2CAPReassemblyEvent], buffered: Int) {
        var reassembler = L2CAPReassembler(maximumPDUSize: limit)
        for handle in open { reassembler.open(handle: handle) }
        var events: [L2CAPReassemblyEvent] = []
        for packet in packets { reassembler.append(packet) { events.append($0) } }
        return (events, reassembler.bufferedCount)
    }

    @Test("a PDU cut into fragments of every size, the header too, joins back")
    func fragments() {
        let pdu = L2CAPPDU(channel: 4, payload: (0..<300).map { UInt8(truncatingIfNeeded: $0) })
        for size in [1, 2, 3, 5, 27, 251, 1000] {
            let (events, buffered) = Self.run(pdu.fragments(handle: 1, fragmentSize: size))
            #expect(events == [.pdu(handle: 1, pdu)])
            #expect(buffered == 0)
        }
    }

    @Test("a fragment for an unknown handle, a continuation without a start: dropped with a typed reason")
    func strayFragments() {
        let (unknown, _) = Self.run([ACLDataPacket(handle: 7, boundary: .firstFlushable, data: [1, 0, 4, 0, 0x0A])])
        #expect(unknown == [.dropped(.unknownHandle(7))])
        let (orphan, buffered) = Self.run([ACLDataPacket(handle: 1, boundary: .continuation, data: [1, 2, 3])])
        #expect(orphan == [.dropped(.continuationWithoutStart(handle: 1))])
        #expect(buffered == 0)
    }

    @Test("a PDU longer than the MTU is dropped and its continuations skipped; the next PDU arrives whole")
    func tooLarge() {
        let big = L2CAPPDU(channel: 4, payload: [UInt8](repeating: 0xEE, count: 2000)).fragments(handle: 1, fragmentSize: 251)
        let small = L2CAPPDU(channel: 4, payload: [0x0A, 0x01, 0x00])
        let (events, buffered) = Self.run(big + small.fragments(handle: 1, fragmentSize: 2))
        #expect(events == [.dropped(.pduTooLarge(length: 2000, limit: 517)), .pdu(handle: 1, small)])
        #expect(buffered == 0)
    }

    @Test("fragments past the announced length, a start in the middle of a PDU: dropped, reassembly goes on")
    func overrunAndRestart() {
        let overrun = [ACLDataPacket(handle: 1, boundary: .firstFlushable, data: [2, 0, 4, 0, 0x0A]), ACLDataPacket(handle: 1, boundary: .continuation, data: [1, 2])]
        #expect(Self.run(overrun).events == [.dropped(.fragmentOverrun(handle: 1, expected: 2, received: 3))])
        let restart = [
            ACLDataPacket(handle: 1, boundary: .firstFlushable, data: [9, 0, 4, 0, 1]),
            ACLDataPacket(handle: 1, boundary: .firstFlushable, data: [1, 0, 4, 0, 0x0B]),
        ]
        #expect(Self.run(restart).events == [.dropped(.startDuringPDU(handle: 1, dropped: 5)), .pdu(handle: 1, L2CAPPDU(channel: 4, payload: [0x0B]))])
    }

    @Test("a closed handle drops its PDU in progress and takes no more fragments")
    func close() {
        var reassembler = L2CAPReassembler()
        reassembler.open(handle: 1)
        reassembler.append(ACLDataPacket(handle: 1, boundary: .firstFlushable, data: [9, 0, 4, 0, 1])) { _ in }
        #expect(reassembler.close(handle: 1) == 5)
        var events: [L2CAPReassemblyEvent] = []
        reassembler.append(ACLDataPacket(handle: 1, boundary: .continuation, data: [1])) { events.append($0) }
        #expect(events == [.dropped(.unknownHandle(1))])
    }

    @Test("signalling: a valid parameter update is accepted, an invalid one rejected, unknown requests rejected, responses ignored")
    func signalling() throws {
        let valid = L2CAPSignal(code: 0x12, identifier: 3, data: [12, 0, 24, 0, 0, 0, 0x90, 0x01])
        guard case .respond(let accepted, let update) = valid.reply() else {
            Issue.record("no answer")
            return
        }
        #expect(accepted == L2CAPSignal(code: 0x13, identifier: 3, data: [0, 0]))
        #expect(update?.minimumInterval == 12 && update?.maximumInterval == 24 && update?.supervisionTimeout == 400)
        // Timeout 100 ms is shorter than twice the 30 ms interval allows at latency 4.
        let invalid = L2CAPSignal(code: 0x12, identifier: 4, data: [24, 0, 24, 0, 4, 0, 10, 0])
        #expect(invalid.reply() == .respond(L2CAPSignal(code: 0x13, identifier: 4, data: [1, 0]), update: nil))
        #expect(L2CAPSignal(code: 0x0A, identifier: 5, data: [1, 0]).reply() == .respond(L2CAPSignal.reject(5, reason: 0), update: nil))
        #expect(L2CAPSignal(code: 0x12, identifier: 6, data: [1]).reply() == .respond(L2CAPSignal.reject(6, reason: 0), update: nil))
        guard case .respond(let refused, nil) = L2CAPSignal(code: 0x14, identifier: 7, data: [0x80, 0, 0x40, 0, 0x17, 0, 0x17, 0, 1, 0]).reply() else {
            Issue.record("no answer to an LE credit-based connection request")
            return
        }
        #expect(refused.code == 0x15 && refused.data.suffix(2) == [0x02, 0x00])
        if case .respond = L2CAPSignal(code: 0x13, identifier: 8, data: [0, 0]).reply() { Issue.record("answered a response") }
        if case .respond = L2CAPSignal(code: 0x12, identifier: 0, data: [12, 0, 24, 0, 0, 0, 0x90, 0x01]).reply() { Issue.record("answered identifier 0") }
        #expect(throws: HCIDecodingError.lengthPastEnd(what: "L2CAP signalling command", length: 8, available: 2)) {
            try L2CAPSignal.decode([0x12, 1, 8, 0, 1, 2])
        }
        #expect(try L2CAPSignal.decode(valid.bytes) == valid)
    }

    @Test("connection parameters from durations: 7.5–15 ms by default, spec ranges enforced")
    func parameters() {
        let defaults = LEConnectionParameters()
        #expect(defaults.minimumInterval == 6 && defaults.maximumInterval == 12 && defaults.isValid)
        let custom = LEConnectionParameters(interval: .milliseconds(30), .milliseconds(50), supervisionTimeout: .seconds(2))
        #expect(custom.minimumInterval == 24 && custom.maximumInterval == 40 && custom.supervisionTimeout == 200 && custom.isValid)
        let clamped = LEConnectionParameters(interval: .milliseconds(1), .milliseconds(1))
        #expect(clamped.minimumInterval == 6)
        #expect(!LEConnectionParameters(minimumInterval: 12, maximumInterval: 6).isValid)
    }
}
