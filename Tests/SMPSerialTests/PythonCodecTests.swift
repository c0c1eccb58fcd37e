import Foundation
import SMP
import SMPSerial
import SMPTestSupport
import Testing

/// The console framing against an independent implementation: Python's standard library
/// (`base64`, `binascii.crc_hqx`), with its own way of cutting frames (plain 93-byte pieces, which
/// may split the CRC, where ours never does).
@Suite("Console framing against Python's base64 and binascii.crc_hqx")
struct PythonCodecTests {
    /// `encode INPUT`: frames each packet of INPUT (`{"line_length", "packets": [hex]}`) and prints
    /// `{"stream": hex, "crcs": [int]}`. `decode INPUT`: deframes INPUT's `{"stream": hex}`, checks each
    /// CRC residue, and prints `{"packets": [hex]}`.
    static let script = #"""
        import base64, binascii, json, sys

        def frame(packet, line_length):
            crc = binascii.crc_hqx(packet, 0)
            raw = (len(packet) + 2).to_bytes(2, "big") + packet + crc.to_bytes(2, "big")
            per = (line_length - 3) // 4 * 3
            out = b""
            for i in range(0, len(raw), per):
                out += (b"\x06\x09" if i == 0 else b"\x04\x14") + base64.b64encode(raw[i:i + per]) + b"\n"
            return out, crc

        def deframe(stream, line_length):
            packets, buf, expected = [], b"", None
            for line in stream.split(b"\n")[:-1]:
                if len(line) + 1 > line_length:
                    raise ValueError("frame of %d bytes exceeds the line length" % (len(line) + 1))
                marker, body = line[:2], line[2:]
                data = base64.b64decode(body, validate=True)
                if marker == b"\x06\x09":
                    expected, buf = int.from_bytes(data[:2], "big"), data[2:]
                elif marker == b"\x04\x14":
                    buf += data
                else:
                    raise ValueError("line without a marker: %r" % line[:10])
                if expected is not None and len(buf) == expected:
                    if binascii.crc_hqx(buf, 0) != 0:
                        raise ValueError("CRC residue is not zero")
                    packets.append(buf[:-2].hex())
                    expected = None
            if expected is not None:
                raise ValueError("stream ends inside a packet")
            return packets

        mode, spec = sys.argv[2], json.load(open(sys.argv[1]))
        if mode == "encode":
            stream, crcs = b"", []
            for p in spec["packets"]:
                frames, crc = frame(bytes.fromhex(p), spec["line_length"])
                stream += frames
                crcs.append(crc)
            print(json.dumps({"stream": stream.hex(), "crcs": crcs}))
        else:
            print(json.dumps({"packets": deframe(bytes.fromhex(spec["stream"]), spec["line_length"])}))
        """#

    /// Packets of every size around the frame boundaries, a few large ones and the reference packets.
    static func packets() -> [[UInt8]] {
        var random = SeededRandom(seed: 12)
        let sizes = Array(0...200) + [279, 280, 281, 372, 1000, 2044, 4096, 65533]
        return [ConsoleFramingReferenceTests.echoRequest, ConsoleFramingReferenceTests.uploadRequest]
            + sizes.map { random.bytes($0) }
    }

    @Test("frames made by Python decode to the same packets, with the same CRCs", arguments: [127, 128, 512])
    func pythonFramesDecode(lineLength: Int) async throws {
        let packets = Self.packets()
        let input = try JSONSerialization.data(withJSONObject: ["line_length": lineLength, "packets": packets.map { Hex.string($0) }])
        let run = try await Subprocess.python(Self.script, input: input, arguments: ["encode"])
        let out = try run.json()
        let stream = Hex.bytes(try #require(out["stream"] as? String))
        #expect(out["crcs"] as? [Int] == packets.map { Int(CRC16XMODEM.checksum($0)) })

        var decoder = ConsoleFrameDecoder()
        let outputs = decoder.append(stream)
        #expect(outputs.count == packets.count)
        #expect(outputs == packets.map { .packet($0) })
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test("our frames decode in Python to the same packets, within the line length", arguments: [127, 512])
    func ourFramesDecodeInPython(lineLength: Int) async throws {
        let packets = Self.packets()
        let encoder = try ConsoleFrameEncoder(lineLength: lineLength)
        let stream = try packets.flatMap { try encoder.encode($0) }
        let input = try JSONSerialization.data(withJSONObject: ["line_length": lineLength, "stream": Hex.string(stream)])
        let run = try await Subprocess.python(Self.script, input: input, arguments: ["decode"])
        #expect(try run.json()["packets"] as? [String] == packets.map { Hex.string($0) })
    }
}
