import Foundation
import SMP
import SMPSerial
import SMPTestSupport
import Testing

private func packets(_ outputs: [ConsoleFrameDecoder.Output]) -> [[UInt8]] {
    outputs.compactMap { if case .packet(let p) = $0 { return p } else { return nil } }
}

private func drops(_ outputs: [ConsoleFrameDecoder.Output]) -> [ConsoleFramingError] {
    outputs.compactMap { if case .dropped(let e) = $0 { return e } else { return nil } }
}

private func texts(_ outputs: [ConsoleFrameDecoder.Output]) -> [String] {
    outputs.compactMap { if case .text(let t) = $0 { return String(decoding: t, as: UTF8.self) } else { return nil } }
}

/// A first frame whose base64 carries `raw` (length field included) as given.
private func firstFrame(raw: [UInt8]) -> [UInt8] {
    [0x06, 0x09] + Array(Data(raw).base64EncodedString().utf8) + [0x0A]
}

/// The decoder against split, damaged, lying and hostile input: packets or typed drops, bounded memory.
@Suite("Console framing: decoder robustness")
struct ConsoleDecoderRobustnessTests {
    static let packetsUnderTest: [[UInt8]] = {
        var random = SeededRandom(seed: 3)
        return [ConsoleFramingReferenceTests.echoRequest, random.bytes(300), ConsoleFramingReferenceTests.uploadRequest, random.bytes(7)]
    }()

    static func stream(lineLength: Int = 127) throws -> [UInt8] {
        let encoder = try ConsoleFrameEncoder(lineLength: lineLength)
        return try packetsUnderTest.flatMap { try encoder.encode($0) }
    }

    @Test("every split of a frame stream into two pieces gives the same packets")
    func everyTwoWaySplit() throws {
        let stream = try Self.stream()
        for cut in 0...stream.count {
            var decoder = ConsoleFrameDecoder()
            let outputs = decoder.append(stream[..<cut]) + decoder.append(stream[cut...])
            #expect(outputs == Self.packetsUnderTest.map { .packet($0) }, "cut at \(cut)")
            #expect(decoder.bufferedByteCount == 0)
        }
    }

    @Test("one byte at a time, and random many-way splits, give the same packets")
    func manyWaySplits() throws {
        let stream = try Self.stream()
        var decoder = ConsoleFrameDecoder()
        var outputs: [ConsoleFrameDecoder.Output] = []
        for byte in stream { outputs += decoder.append([byte]) }
        #expect(outputs == Self.packetsUnderTest.map { .packet($0) })

        var random = SeededRandom(seed: 99)
        for _ in 0..<300 {
            let cuts = (0..<Int.random(in: 1...12, using: &random)).map { _ in Int.random(in: 0...stream.count, using: &random) }.sorted()
            var decoder = ConsoleFrameDecoder()
            var outputs: [ConsoleFrameDecoder.Output] = []
            var start = 0
            for cut in cuts + [stream.count] {
                outputs += decoder.append(stream[start..<cut])
                start = cut
            }
            #expect(outputs == Self.packetsUnderTest.map { .packet($0) }, "cuts \(cuts)")
        }
    }

    @Test("random garbage between packets: every packet still decodes, the rest is text or typed drops", arguments: 1...20)
    func garbageBetweenPackets(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let encoder = try ConsoleFrameEncoder()
        var stream: [UInt8] = []
        for packet in Self.packetsUnderTest {
            // Any bytes at all, markers and newlines included.
            stream += random.bytes(Int.random(in: 0...200, using: &random))
            stream += try encoder.encode(packet)
        }
        stream += random.bytes(50) + [0x0A]
        var decoder = ConsoleFrameDecoder()
        let outputs = decoder.append(stream) + decoder.finish()
        #expect(packets(outputs) == Self.packetsUnderTest)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test("Zephyr log lines between packets and between the frames of one packet are passed on as text")
    func logLinesBetweenFrames() throws {
        let encoder = try ConsoleFrameEncoder()
        let frames = try encoder.frames(for: ConsoleFramingReferenceTests.uploadRequest)
        let log1 = Array("[00:00:01.000,000] <inf> app: hello\r\n".utf8)
        let log2 = Array("[00:00:01.002,500] <wrn> flash: slow".utf8)  // no newline: the next frame's marker ends it
        let stream = log1 + frames[0] + log2 + frames[1] + log1
        var decoder = ConsoleFrameDecoder()
        let outputs = decoder.append(stream)
        #expect(packets(outputs) == [ConsoleFramingReferenceTests.uploadRequest])
        #expect(texts(outputs) == ["[00:00:01.000,000] <inf> app: hello", "[00:00:01.002,500] <wrn> flash: slow", "[00:00:01.000,000] <inf> app: hello"])
        #expect(drops(outputs).isEmpty)
    }

    @Test("a bad CRC drops that packet alone, with a typed error")
    func badCRC() throws {
        let encoder = try ConsoleFrameEncoder()
        var damaged = try encoder.encode(ConsoleFramingReferenceTests.echoRequest)
        // Change one base64 character of the payload to another valid one.
        damaged[10] = damaged[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let stream = damaged + (try encoder.encode(ConsoleFramingReferenceTests.uploadRequest))
        var decoder = ConsoleFrameDecoder()
        let outputs = decoder.append(stream)
        #expect(drops(outputs) == [.checksumMismatch(packetLength: ConsoleFramingReferenceTests.echoRequest.count)])
        #expect(packets(outputs) == [ConsoleFramingReferenceTests.uploadRequest])
    }

    @Test("a truncated frame: the partial packet is dropped when the next packet starts, or reported at the end")
    func truncatedFrame() throws {
        let encoder = try ConsoleFrameEncoder()
        let frames = try encoder.frames(for: ConsoleFramingReferenceTests.uploadRequest)
        // The second frame loses its second half and its newline; the next packet's marker cuts it.
        let cut = Array(frames[1].prefix(40))
        let next = try encoder.encode(ConsoleFramingReferenceTests.echoRequest)
        var decoder = ConsoleFrameDecoder()
        let outputs = decoder.append(frames[0] + cut + next)
        #expect(packets(outputs) == [ConsoleFramingReferenceTests.echoRequest])
        let errors = drops(outputs)
        #expect(errors.count == 1)
        #expect(errors.allSatisfy { if case .checksumMismatch = $0 { false } else { true } })

        var ending = ConsoleFrameDecoder()
        let first = ending.append(frames[0])
        #expect(first.isEmpty)
        #expect(ending.hasPartialPacket)
        #expect(ending.finish() == [.dropped(.truncated(received: 91, declared: 148))])
        #expect(ending.bufferedByteCount == 0)
    }

    @Test("a length of 65535 with 10 bytes behind it allocates nothing for the claim and yields no packet")
    func lyingLength() throws {
        var random = SeededRandom(seed: 5)
        let liar = firstFrame(raw: [0xFF, 0xFF] + random.bytes(10))
        var decoder = ConsoleFrameDecoder()
        #expect(decoder.append(liar).isEmpty)
        #expect(decoder.hasPartialPacket)
        #expect(decoder.bufferedByteCount == 10)
        #expect(decoder.finish() == [.dropped(.truncated(received: 10, declared: 65535))])

        // A real packet after the liar is decoded; the liar is reported as interrupted.
        var again = ConsoleFrameDecoder()
        let outputs = again.append(liar + (try ConsoleFrameEncoder().encode(ConsoleFramingReferenceTests.echoRequest)))
        #expect(outputs == [.dropped(.interrupted(received: 10, declared: 65535)), .packet(ConsoleFramingReferenceTests.echoRequest)])

        // With a device-sized limit the claim is refused outright, and its continuations are skipped silently.
        var bounded = ConsoleFrameDecoder(maximumPacketSize: 2044)
        let continuation: [UInt8] = [0x04, 0x14] + Array("AAAA".utf8) + [0x0A]
        #expect(bounded.append(liar + continuation + continuation) == [.dropped(.oversized(declared: 65535, limit: 2044))])
        #expect(bounded.bufferedByteCount == 0)
    }

    @Test("frames carrying more than declared, short first frames, zero lengths and bad base64 are typed drops")
    func malformedFrames() throws {
        var decoder = ConsoleFrameDecoder()
        // Declares 4 bytes (2 of packet + CRC) but carries 7.
        #expect(decoder.append(firstFrame(raw: [0x00, 0x04, 1, 2, 3, 4, 5, 6, 7])) == [.dropped(.lengthMismatch(declared: 4, received: 7))])
        #expect(decoder.append(firstFrame(raw: [0x00])) == [.dropped(.missingLength)])
        #expect(decoder.append(firstFrame(raw: [0x00, 0x01, 0x00])) == [.dropped(.invalidLength(declared: 1))])
        let invalid: [UInt8] = [0x06, 0x09] + Array("AB$D".utf8) + [0x0A]
        #expect(decoder.append(invalid) == [.dropped(.invalidBase64(frameLength: 7))])
        #expect(decoder.bufferedByteCount == 0)
        #expect(decoder.append(try ConsoleFrameEncoder().encode([1, 2, 3])) == [.packet([1, 2, 3])])
        // A continuation with nothing in progress (and not following a dropped first frame).
        let orphan: [UInt8] = [0x04, 0x14] + Array("AAAA".utf8) + [0x0A]
        #expect(decoder.append(orphan) == [.dropped(.unexpectedContinuation)])
    }

    @Test("an endless line is cut at the limit; the next frame still decodes")
    func endlessLine() throws {
        var decoder = ConsoleFrameDecoder(maximumLineLength: 1024)
        let junk = [UInt8](repeating: UInt8(ascii: "x"), count: 100_000)
        #expect(decoder.append(junk).isEmpty)
        #expect(decoder.bufferedByteCount <= 1024)
        let outputs = decoder.append(try ConsoleFrameEncoder().encode(ConsoleFramingReferenceTests.echoRequest))
        #expect(outputs == [.dropped(.lineTooLong(limit: 1024)), .packet(ConsoleFramingReferenceTests.echoRequest)])
    }

    @Test("a megabyte of random bytes: no crash, no hang, bounded buffers; a packet after it decodes", arguments: [1, 2, 3] as [UInt64])
    func randomBytes(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var decoder = ConsoleFrameDecoder(maximumPacketSize: 2044, maximumLineLength: 512)
        var largest = 0
        for _ in 0..<256 {
            _ = decoder.append(random.bytes(4096))
            largest = max(largest, decoder.bufferedByteCount)
        }
        #expect(largest <= 512 + 2046)
        let outputs = decoder.append([0x0A] + (try ConsoleFrameEncoder().encode(ConsoleFramingReferenceTests.echoRequest)))
        #expect(packets(outputs) == [ConsoleFramingReferenceTests.echoRequest])
    }

    @Test("random base64 frames (valid markers, lying lengths, wrong CRCs): only typed drops, bounded", arguments: [7, 8] as [UInt64])
    func randomFrames(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var decoder = ConsoleFrameDecoder(maximumPacketSize: 4096)
        for _ in 0..<5000 {
            let raw = random.bytes(Int.random(in: 0...93, using: &random))
            let marker: [UInt8] = random.chance(50) ? [0x06, 0x09] : [0x04, 0x14]
            _ = decoder.append(marker + Array(Data(raw).base64EncodedString().utf8) + [0x0A])
            #expect(decoder.bufferedByteCount <= 4098)
        }
        let outputs = decoder.append(try ConsoleFrameEncoder().encode(ConsoleFramingReferenceTests.uploadRequest))
        #expect(packets(outputs) == [ConsoleFramingReferenceTests.uploadRequest])
    }
}
