import BLEHost
import Testing

@Suite("H4 framing and HCI event decoding")
struct H4AndEventDecodingTests {
    /// Command Complete for Reset, an ACL packet, an LE Advertising Report.
    static let stream: [UInt8] =
        [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        + [0x02, 0x01, 0x20, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0A]
        + [0x04, 0x3E, 0x0C, 0x02, 0x01, 0x00, 0x01, 0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0, 0x00, 0xCE]

    static func decodeAll(_ stream: [UInt8], pieces: Int) throws -> [H4DecoderOutput] {
        var decoder = H4StreamDecoder()
        var outputs: [H4DecoderOutput] = []
        var index = 0
        while index < stream.count {
            let end = min(stream.count, index + pieces)
            try decoder.append(stream[index..<end]) { outputs.append($0) }
            index = end
        }
        #expect(decoder.bufferedCount == 0)
        return outputs
    }

    @Test("a stream decodes to the same packets whatever pieces it arrives in")
    func pieces() throws {
        let whole = try Self.decodeAll(Self.stream, pieces: Self.stream.count)
        #expect(whole.count == 3)
        #expect(whole[0] == .packet(.event(code: 0x0E, parameters: [0x01, 0x03, 0x0C, 0x00])))
        #expect(whole[1] == .packet(.acl(ACLDataPacket(handle: 1, boundary: .firstFlushable, data: [0x01, 0x00, 0x04, 0x00, 0x0A]))))
        for size in 1...Self.stream.count { #expect(try Self.decodeAll(Self.stream, pieces: size) == whole) }
    }

    @Test("an unknown packet type throws; the decoder reads on from the next byte")
    func unknownType() throws {
        var decoder = H4StreamDecoder()
        var outputs: [H4DecoderOutput] = []
        #expect(throws: HCIDecodingError.unknownPacketType(0x7F)) { try decoder.append([0x7F]) { outputs.append($0) } }
        try decoder.append([0x04, 0x0E, 0x00]) { outputs.append($0) }
        #expect(outputs == [.packet(.event(code: 0x0E, parameters: []))])
    }

    @Test("an ACL packet longer than the limit is skipped as its bytes arrive; SCO is ignored; the next packet decodes")
    func skipping() throws {
        var decoder = H4StreamDecoder(maximumACLLength: 8)
        var outputs: [H4DecoderOutput] = []
        try decoder.append([0x02, 0x01, 0x20, 0x00, 0x10]) { outputs.append($0) }  // 4096 bytes announced
        #expect(outputs == [.skipped(.packetTooLong(type: "ACL", length: 4096, limit: 8))])
        for _ in 0..<64 { try decoder.append([UInt8](repeating: 0xAA, count: 64)) { outputs.append($0) } }
        #expect(decoder.bufferedCount == 0)
        try decoder.append([0x03, 0x01, 0x00, 0x02, 0xFF, 0xFF, 0x04, 0x0F, 0x04, 0x00, 0x01, 0x0D, 0x20]) { outputs.append($0) }
        #expect(outputs.dropFirst() == [.ignored(.sco, length: 2), .packet(.event(code: 0x0F, parameters: [0x00, 0x01, 0x0D, 0x20]))])
    }

    @Test("events decode to typed values")
    func events() throws {
        #expect(try HCIEvent.decode(code: 0x0E, parameters: [0x01, 0x03, 0x0C, 0x00]) == .commandComplete(credits: 1, opcode: 0x0C03, returnParameters: [0]))
        #expect(try HCIEvent.decode(code: 0x0F, parameters: [0x0C, 0x01, 0x32, 0x20]) == .commandStatus(status: .commandDisallowed, credits: 1, opcode: 0x2032))
        #expect(try HCIEvent.decode(code: 0x05, parameters: [0x00, 0x01, 0x00, 0x13]) == .disconnectionComplete(status: .success, handle: 1, reason: .remoteUserTerminated))
        #expect(
            try HCIEvent.decode(code: 0x13, parameters: [0x02, 0x01, 0x00, 0x03, 0x00, 0x02, 0x00, 0x01, 0x00])
                == .numberOfCompletedPackets([CompletedPackets(handle: 1, count: 3), CompletedPackets(handle: 2, count: 1)]))
        let complete = try HCIEvent.decode(
            code: 0x3E, parameters: [0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0, 0x06, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00])
        guard case .le(.connectionComplete(let c)) = complete else {
            Issue.record("not a connection complete: \(complete)")
            return
        }
        #expect(c.handle == 0x40 && c.isCentral && c.interval == 6 && c.supervisionTimeout == 400)
        #expect(c.peer == LEAddress("F0:F1:F2:F3:F4:F5", kind: .random))
    }

    @Test("truncated events, counts past the end, unknown events and subevents: typed errors or kept as unknown")
    func malformedEvents() {
        #expect(throws: HCIDecodingError.self) { try HCIEvent.decode(code: 0x0E, parameters: [0x01, 0x03]) }
        #expect(throws: HCIDecodingError.self) { try HCIEvent.decode(code: 0x0F, parameters: [0x00]) }
        #expect(throws: HCIDecodingError.lengthPastEnd(what: "Number Of Completed Packets", length: 12, available: 4)) {
            try HCIEvent.decode(code: 0x13, parameters: [0x03, 0x01, 0x00, 0x01, 0x00])
        }
        #expect(throws: HCIDecodingError.self) { try HCIEvent.decode(code: 0x3E, parameters: []) }
        #expect(throws: HCIDecodingError.self) { try HCIEvent.decode(code: 0x3E, parameters: [0x01, 0x00, 0x40]) }
        // An advertising report whose data length runs past the event.
        #expect(throws: HCIDecodingError.lengthPastEnd(what: "advertising data", length: 31, available: 1)) {
            try HCIEvent.decode(code: 0x3E, parameters: [0x02, 0x01, 0x00, 0x01, 1, 2, 3, 4, 5, 6, 31, 0xCE])
        }
        // Two reports announced, one present.
        #expect(throws: HCIDecodingError.self) {
            try HCIEvent.decode(code: 0x3E, parameters: [0x02, 0x02, 0x00, 0x01, 1, 2, 3, 4, 5, 6, 0, 0xCE])
        }
        #expect((try? HCIEvent.decode(code: 0xFF, parameters: [1, 2, 3])) == .unknown(code: 0xFF, parameters: [1, 2, 3]))
        #expect((try? HCIEvent.decode(code: 0x3E, parameters: [0x29, 9])) == .le(.unknown(subevent: 0x29, parameters: [9])))
    }

    @Test("ACL headers: truncated, length past the data, reserved boundary flag")
    func aclHeaders() throws {
        #expect(throws: HCIDecodingError.truncated(what: "ACL header", needed: 4, available: 2)) { try ACLDataPacket.decode([0x01, 0x20]) }
        #expect(throws: HCIDecodingError.lengthPastEnd(what: "ACL packet", length: 9, available: 1)) {
            try ACLDataPacket.decode([0x01, 0x20, 0x09, 0x00, 0xAA])
        }
        #expect(throws: HCIDecodingError.invalidBoundaryFlag(handle: 1, flag: 3)) { try ACLDataPacket.decode([0x01, 0x30, 0x00, 0x00]) }
        let packet = ACLDataPacket(handle: 0x0ABC, boundary: .continuation, data: [1, 2, 3])
        #expect(try ACLDataPacket.decode(packet.bytes) == packet)
    }

    @Test("advertising data: flags, 16- and 128-bit service UUIDs, complete before shortened names; a structure past the end stops parsing")
    func advertisingData() {
        let smp: [UInt8] = [0x84, 0xAA, 0x60, 0x74, 0x52, 0x8A, 0x8B, 0x86, 0xD3, 0x4C, 0xB7, 0x1D, 0x1D, 0xDC, 0x53, 0x8D]
        let data = AdvertisingData([0x02, 0x01, 0x06, 0x11, 0x07] + smp + [0x03, 0x08, 0x73, 0x6D, 0x03, 0x03, 0x0D, 0x18, 0x04, 0x09, 0x73, 0x6D, 0x70, 0x05, 0xFF])
        #expect(data.flags == 0x06)
        #expect(data.serviceUUIDs.map(\.description).contains { $0.uppercased() == "8D53DC1D-1DB7-4CD3-868B-8A527460AA84" })
        #expect(data.serviceUUIDs.count == 2)
        #expect(data.localName == "smp")
        #expect(data.hasCompleteName)
        #expect(AdvertisingData([0x05, 0x09, 0x61]).localName == nil)
        #expect(AdvertisingData([0x00, 0x02, 0x01, 0x06]).flags == nil)
    }
}
