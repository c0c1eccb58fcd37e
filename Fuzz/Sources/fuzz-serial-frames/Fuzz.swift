// products: SMPSerial SMP
import FuzzSupport
import SMP
import SMPSerial

/// What a serial line delivers to the client (console text, logs, garbage, partial frames, lying
/// lengths, bad CRC or base64) through `SerialPacketDecoder`, as the serial transport's read loop
/// runs it, in console or raw framing and in the fragmentation the input chooses.
///
/// Invariants: a packet comes out only within the size limit (raw: only whole SMP responses; console:
/// never more packets than first-frame markers); text lines hold no newline and never start with a
/// marker; the bytes held stay within one line and one packet; the output does not depend on how the
/// stream was cut; and (console) after any garbage, a newline and a well-formed packet deliver that
/// packet, so no input can desynchronise the decoder for good.
///
/// Input: a flags byte (bit 0 raw framing, bit 1 responses as writes), a byte choosing the packet
/// limit, one the line limit, one the clean packet's frame length, a length byte and the clean
/// packet's payload, then pieces of the stream (each a length byte and that many bytes).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSerialFrames(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    let flags = input.byte()
    let framing: SerialFraming = flags & 1 == 0 ? .console : .raw
    let limit = 8 + Int(input.byte()) * 32
    let lineLimit = 7 + Int(input.byte()) * 4
    let frameLength = min(7 + Int(input.byte()), lineLimit + 1)
    let payload = input.take(Int(input.byte()))
    var pieces: [[UInt8]] = []
    while !input.isAtEnd { pieces.append(input.take(Int(input.byte()))) }
    let stream = pieces.flatMap { $0 }

    let header = SMPHeader(
        operation: flags & 2 == 0 ? .readResponse : .writeResponse, length: UInt16(payload.count),
        group: UInt16(payload.first ?? 0), sequence: UInt8(truncatingIfNeeded: payload.count), command: payload.last ?? 0)
    let clean = header.bytes + payload

    let check = Checker(framing: framing, limit: limit, lineLimit: lineLimit, stream: stream)
    var decoder = check.makeDecoder()
    var outputs: [SerialPacketDecoder.Output] = []
    for piece in pieces {
        decoder.append(piece) { output in
            check.output(output)
            outputs.append(output)
        }
        check.bounded(decoder)
    }

    // The same stream in one piece gives the same results (raw framing: the same packets, since
    // skipped garbage is reported per piece).
    var whole = check.makeDecoder()
    let wholeOutputs = whole.append(stream)
    if framing == .console {
        precondition(wholeOutputs == outputs, "the console decoder's output depends on how the stream was cut")
        checkFinish(stream: stream, packetLimit: check.packetLimit, lineLimit: lineLimit)
    } else {
        precondition(wholeOutputs.compactMap(\.packet) == outputs.compactMap(\.packet), "the raw decoder's packets depend on how the stream was cut")
    }

    if clean.count <= check.packetLimit {
        switch framing {
        case .console:
            // Resynchronisation: a newline, then a well-formed packet in frames of `frameLength`.
            guard let frames = try? ConsoleFrameEncoder(lineLength: frameLength).encode(clean) else {
                fatalError("a \(clean.count)-byte packet cannot be framed in \(frameLength)-byte lines")
            }
            let tail = [0x0A] + frames
            check.saw(tail)
            let after = decoder.append(tail)
            for output in after { check.output(output) }
            check.bounded(decoder)
            precondition(after.last == .packet(clean), "a well-formed packet after garbage was not delivered: \(after.suffix(3))")
            precondition(decoder.bufferedByteCount == 0, "bytes held after a complete packet")
        case .raw:
            // A whole packet on a fresh decoder, in the input's fragmentation, comes out as it went in.
            var fresh = check.makeDecoder()
            var delivered: [SerialPacketDecoder.Output] = []
            var rest = clean[...]
            for piece in pieces where !rest.isEmpty {
                let cut = rest.prefix(max(1, piece.count))
                rest = rest.dropFirst(cut.count)
                delivered += fresh.append(cut)
            }
            delivered += fresh.append(rest)
            precondition(delivered == [.packet(clean)], "a whole SMP packet did not come through raw framing: \(delivered)")
        }
    }

    let held = decoder.bufferedByteCount
    precondition(decoder.reset() == held, "reset does not report the bytes it dropped")
    precondition(decoder.bufferedByteCount == 0, "bytes held after a reset")
    return 0
}

/// The invariants of one decoder configuration over one stream (libFuzzer calls the target on
/// one thread, so the counts need no lock).
final class Checker {
    let framing: SerialFraming
    /// The packet limit the decoder applies (console framing caps it at the 16-bit field's).
    let packetLimit: Int
    let lineLimit: Int
    /// How many first-frame markers (0x06 0x09) the bytes fed hold: no more packets can come out.
    private var firstMarkers = 0
    private var delivered = 0

    init(framing: SerialFraming, limit: Int, lineLimit: Int, stream: [UInt8]) {
        self.framing = framing
        self.packetLimit = framing == .console ? min(limit, ConsoleFrameEncoder.largestPacket) : max(limit, SMPHeader.size)
        self.lineLimit = lineLimit
        saw(stream)
    }

    /// Counts the first-frame markers of bytes about to be fed (each part starts after a non-marker byte).
    func saw(_ bytes: [UInt8]) {
        firstMarkers += zip(bytes, bytes.dropFirst()).filter { $0 == 0x06 && $1 == 0x09 }.count
    }

    func makeDecoder() -> SerialPacketDecoder {
        SerialPacketDecoder(
            framing: framing, maximumPacketSize: packetLimit, operations: [.readResponse, .writeResponse], maximumLineLength: lineLimit)
    }

    /// One output of the stream.
    func output(_ output: SerialPacketDecoder.Output) {
        switch output {
        case .packet(let bytes):
            precondition(bytes.count <= packetLimit, "a \(bytes.count)-byte packet past the \(packetLimit)-byte limit was delivered")
            switch framing {
            case .raw:
                guard let packet = try? SMPPacket(decoding: bytes) else { fatalError("raw framing delivered an undecodable packet") }
                precondition(packet.header.operation.isResponse, "raw framing delivered a request to the client")
            case .console:
                delivered += 1
                precondition(delivered <= firstMarkers, "more packets than first-frame markers")
            }
        case .text(let line):
            precondition(framing == .console, "raw framing delivered console text")
            precondition(!line.isEmpty && !line.contains(0x0A), "a text line that is empty or holds a newline")
            precondition(line.count <= lineLimit, "a text line past the line limit")
            precondition(!line.starts(with: [0x06, 0x09]) && !line.starts(with: [0x04, 0x14]), "a frame delivered as text")
        case .dropped(let error):
            switch (framing, error) {
            case (.console, .console), (.raw, .raw): break
            default: fatalError("\(framing) framing reported a drop of the other framing: \(error)")
            }
            precondition(!error.description.isEmpty)
        }
    }

    /// What the decoder holds between appends: at most one line and one packet with its length and CRC.
    func bounded(_ decoder: SerialPacketDecoder) {
        let bound = framing == .console ? lineLimit + packetLimit + 2 : packetLimit
        precondition(decoder.bufferedByteCount <= bound, "the decoder holds \(decoder.bufferedByteCount) bytes, more than \(bound)")
    }
}

/// The console decoder itself: `finish()` reports a packet cut short at most once, then holds nothing.
func checkFinish(stream: [UInt8], packetLimit: Int, lineLimit: Int) {
    var console = ConsoleFrameDecoder(maximumPacketSize: packetLimit, maximumLineLength: lineLimit)
    _ = console.append(stream)
    let partial = console.hasPartialPacket
    let finished = console.finish()
    precondition(finished.count == (partial ? 1 : 0), "finish() reported \(finished.count) truncations")
    if case .dropped(.truncated(let received, let declared))? = finished.first {
        precondition(received < declared && declared <= packetLimit + 2, "a truncation of \(received) of \(declared) bytes")
    }
    precondition(console.bufferedByteCount == 0 && !console.hasPartialPacket, "bytes held after finish()")
}

extension SerialPacketDecoder.Output {
    /// The packet, when this is one.
    var packet: [UInt8]? {
        if case .packet(let bytes) = self { return bytes }
        return nil
    }
}
