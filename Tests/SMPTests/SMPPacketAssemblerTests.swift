import SMP
import SMPTestSupport
import Testing

/// Response packets from the protocol reference (§8), byte for byte as cbor2 and Zephyr produce them.
private let referenceResponses: [[UInt8]] = [
    HexText.bytes("0b 00 00 09 00 00 42 00 a1 61 72 65 68 65 6c 6c 6f"),
    HexText.bytes("0b 00 00 0a 00 00 42 00 bf 61 72 65 68 65 6c 6c 6f ff"),
    HexText.bytes("0b 00 00 08 00 01 10 01 bf 63 6f 66 66 18 40 ff"),
    HexText.bytes("0b 00 00 0f 00 01 19 01 a2 63 6f 66 66 19 02 48 65 6d 61 74 63 68 f5"),
    HexText.bytes("0b 00 00 13 00 01 20 00 bf 63 65 72 72 bf 65 67 72 6f 75 70 01 62 72 63 08 ff ff"),
    HexText.bytes("09 00 00 06 00 00 21 03 bf 62 72 63 08 ff"),
    HexText.bytes("09 00 00 18 00 00 50 06 a2 68 62 75 66 5f 73 69 7a 65 19 09 ab 69 62 75 66 5f 63 6f 75 6e 74 04"),
    HexText.bytes("0b 00 00 01 00 00 51 05 a0"),
]

/// A 2 KiB response: header declaring 2040 payload bytes, then the payload.
private let longResponse: [UInt8] = {
    var random = SeededRandom(seed: 7)
    return [0x0b, 0x00, 0x07, 0xf8, 0x00, 0x08, 0x05, 0x01] + random.bytes(2040)
}()

private func packets(_ outputs: [SMPPacketAssembler.Output]) -> [[UInt8]] {
    outputs.compactMap { if case .packet(let p) = $0 { return p } else { return nil } }
}

private func skips(_ outputs: [SMPPacketAssembler.Output]) -> [SMPPacketAssemblyError] {
    outputs.compactMap { if case .skipped(let e) = $0 { return e } else { return nil } }
}

/// Feeds `stream` cut at `cuts` and returns everything the assembler put out.
private func feed(_ stream: [UInt8], cuts: [Int], into assembler: inout SMPPacketAssembler) -> [SMPPacketAssembler.Output] {
    var outputs: [SMPPacketAssembler.Output] = []
    var start = 0
    for cut in cuts.sorted() + [stream.count] where cut >= start {
        outputs += assembler.append(stream[start..<cut])
        start = cut
    }
    return outputs
}

@Suite("SMP packet assembler")
struct SMPPacketAssemblerTests {
    let all = referenceResponses + [longResponse]

    @Test("one byte at a time gives every packet, whole and in order")
    func oneByteAtATime() {
        let stream = all.flatMap { $0 }
        var assembler = SMPPacketAssembler.responses()
        let outputs = feed(stream, cuts: Array(1..<stream.count), into: &assembler)
        #expect(packets(outputs) == all)
        #expect(skips(outputs).isEmpty)
        #expect(assembler.bufferedByteCount == 0)
    }

    @Test("every split of the reference packets into two pieces gives them whole", arguments: 0..<referenceResponses.count)
    func everyTwoWaySplit(index: Int) {
        let stream = referenceResponses[index] + referenceResponses[(index + 1) % referenceResponses.count]
        for cut in 0...stream.count {
            var assembler = SMPPacketAssembler.responses()
            let outputs = feed(stream, cuts: [cut], into: &assembler)
            #expect(packets(outputs) == [referenceResponses[index], referenceResponses[(index + 1) % referenceResponses.count]], "cut at \(cut)")
        }
    }

    @Test("random pieces, as BLE notifications of any MTU would cut them", arguments: [1, 2, 3, 4, 5])
    func randomPieces(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let stream = (0..<20).flatMap { i in all[i % all.count] }
        var cuts: [Int] = []
        var at = 0
        while at < stream.count {
            at += Int.random(in: 1...300, using: &random)
            cuts.append(min(at, stream.count))
        }
        var assembler = SMPPacketAssembler.responses()
        let outputs = feed(stream, cuts: cuts, into: &assembler)
        #expect(packets(outputs) == (0..<20).map { all[$0 % all.count] })
        #expect(skips(outputs).isEmpty)
    }

    @Test("garbage between packets is skipped and counted; the packets around it survive")
    func garbageBetweenPackets() {
        // Console text, a byte with reserved bits set, and a request (op 2) a client does not take.
        let noise = Array("I: booting\r\n".utf8) + [0xff, 0xe0, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        let stream = referenceResponses[0] + noise + referenceResponses[3] + noise + longResponse
        for pieceSize in [1, 3, 7, 64, stream.count] {
            var assembler = SMPPacketAssembler.responses()
            let outputs = feed(stream, cuts: Array(stride(from: pieceSize, to: stream.count, by: pieceSize)), into: &assembler)
            #expect(packets(outputs) == [referenceResponses[0], referenceResponses[3], longResponse], "pieces of \(pieceSize)")
            let skipped = skips(outputs).reduce(0) { total, skip in
                if case .garbage(let count) = skip { return total + count }
                return total
            }
            #expect(skipped == 2 * noise.count, "pieces of \(pieceSize)")
        }
    }

    @Test("a header claiming more than the limit is a typed error, never a buffer of that size")
    func oversizedHeader() {
        // The largest claim a header can make: 65535 payload bytes, against a 2048-byte limit. (Its
        // other bytes are chosen so that no shifted window of them looks like a response header:
        // resynchronising in a raw stream is byte by byte.)
        let liar: [UInt8] = [0x0b, 0x00, 0xff, 0xff, 0x00, 0x08, 0x42, 0x07]
        var assembler = SMPPacketAssembler.responses(maximumPacketSize: 2048)
        let outputs = assembler.append(liar + Array(repeating: 0x20, count: 10) + referenceResponses[0])
        #expect(skips(outputs).first == .oversized(declared: 65_543, limit: 2048))
        #expect(packets(outputs) == [referenceResponses[0]])
        #expect(assembler.bufferedByteCount == 0)
    }

    @Test("a packet whose end never comes stays buffered, bounded by its declared length, and reset drops it")
    func truncatedPacketAndReset() {
        var assembler = SMPPacketAssembler.responses(maximumPacketSize: 4096)
        let partial = Array(longResponse.prefix(1000))
        #expect(assembler.append(partial).isEmpty)
        #expect(assembler.bufferedByteCount == 1000)
        #expect(assembler.reset() == 1000)
        #expect(packets(assembler.append(referenceResponses[1])) == [referenceResponses[1]])
    }

    @Test("a device's assembler never delivers a response; after a reset the next request comes whole")
    func requestDirection() {
        let request = HexText.bytes("0a 00 00 09 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f")
        var assembler = SMPPacketAssembler.requests()
        let outputs = assembler.append(referenceResponses[7])
        #expect(packets(outputs).isEmpty)
        #expect(skips(outputs).first == .garbage(byteCount: 1))
        assembler.reset()
        #expect(packets(assembler.append(request)) == [request])
    }

    @Test("random bytes never crash the assembler and never grow it past the limit", arguments: [11, 12, 13])
    func randomBytes(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var assembler = SMPPacketAssembler.responses(maximumPacketSize: 512)
        for _ in 0..<2_000 {
            let piece = random.bytes(Int.random(in: 0...40, using: &random))
            for case .packet(let packet) in assembler.append(piece) {
                #expect(packet.count <= 512 && packet.count >= SMPHeader.size)
                #expect((try? SMPHeader(decoding: packet))?.length == UInt16(packet.count - SMPHeader.size))
            }
            #expect(assembler.bufferedByteCount < 512)
        }
    }
}
