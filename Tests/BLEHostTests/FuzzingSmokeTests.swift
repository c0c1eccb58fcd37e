import BLEHost
import Testing

@Suite("Decoders on arbitrary bytes (the fuzz entry points)")
struct FuzzingSmokeTests {
    /// xorshift64*: reproducible bytes without a dependency.
    struct Bytes {
        var state: UInt64
        mutating func next(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in
                state ^= state >> 12
                state ^= state << 25
                state ^= state >> 27
                return UInt8(truncatingIfNeeded: (state &* 2_685_821_657_736_338_717) >> 56)
            }
        }
    }

    @Test("random and mutated inputs go through every entry point without a crash or unbounded work")
    func randomInputs() {
        var bytes = Bytes(state: 0x9E37_79B9_7F4A_7C15)
        let valid = H4AndEventDecodingTests.stream
        for round in 0..<3000 {
            var input = bytes.next(Int(bytes.next(1)[0]) * 3)
            if round % 3 == 0 {
                // Mutate a valid stream: flip a few bytes, so headers and lengths lie.
                input = valid + valid
                for flip in bytes.next(4) { input[Int(flip) % input.count] ^= bytes.next(1)[0] }
            }
            let packets = HCIFuzzing.h4Stream(input)
            #expect(packets <= input.count / 3 + 1)
            HCIFuzzing.event(input)
            #expect(HCIFuzzing.aclReassembly(input) <= input.count / 4 + 1)
            HCIFuzzing.advertisingData(input)
        }
    }

    @Test("a stream that announces huge packets and never delivers them stays bounded")
    func lyingLengths() {
        var decoder = H4StreamDecoder(maximumACLLength: 1024)
        var outputs = 0
        for _ in 0..<1000 {
            try? decoder.append([0x02, 0x01, 0x20, 0xFF, 0xFF]) { _ in outputs += 1 }
        }
        #expect(decoder.bufferedCount <= 5)
        var reassembler = L2CAPReassembler(maximumPDUSize: 517)
        reassembler.open(handle: 1)
        for _ in 0..<1000 {
            reassembler.append(ACLDataPacket(handle: 1, boundary: .firstFlushable, data: [0x00, 0x02, 0x04, 0x00])) { _ in }
            reassembler.append(ACLDataPacket(handle: 1, boundary: .continuation, data: [UInt8](repeating: 0, count: 200))) { _ in }
        }
        #expect(reassembler.bufferedCount <= 517 + 4)
    }
}
