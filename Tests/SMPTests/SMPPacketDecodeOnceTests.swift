import CBOR
@testable import SMP
import SMPTestSupport
import Testing

/// The session decodes an answer once and hands the decoded value on with the packet.
@Suite("SMP packet: an answer is decoded once")
struct SMPPacketDecodeOnceTests {
    /// `{"a": [[[[1]]]]}`: five levels deep.
    let nested = HexText.bytes("08 00 00 08 00 01 01 00 a1 61 61 81 81 81 81 01")

    @Test("the kept value is what a fresh decode gives, and the packet's value is unchanged")
    func keptValueMatches() throws {
        let plain = try SMPPacket(decoding: nested)
        let read = plain.keepingDecodedPayload()
        #expect(read.payload == (try plain.decodedPayload()))
        #expect(try read.packet.decodedPayload() == (try plain.decodedPayload()))
        #expect(read.packet == plain)
        #expect(read.packet.hashValue == plain.hashValue)
        #expect(read.packet.bytes == nested)
    }

    @Test("a reader with another nesting limit decodes again and applies its own limit")
    func otherLimitDecodesAgain() throws {
        let kept = try SMPPacket(decoding: nested).keepingDecodedPayload().packet
        #expect(throws: CBORDecodingError.self) { try kept.decodedPayload(reader: CBORReader(maximumDepth: 2)) }
        #expect(try kept.decodedPayload(reader: CBORReader(maximumDepth: 16)) == (try kept.decodedPayload()))
    }

    @Test("a payload that is not CBOR keeps nothing and still fails for its reader")
    func malformedKeepsNothing() throws {
        let broken = try SMPPacket(decoding: HexText.bytes("08 00 00 02 00 01 01 00 a1 61"))
        let read = broken.keepingDecodedPayload()
        #expect(read.payload == nil)
        #expect(throws: CBORDecodingError.self) { try read.packet.decodedPayload() }
    }
}
