import SMPSerial
import Testing

/// The console framing against the byte-exact examples of the protocol reference (§5.3, §8.1, §8.2).
@Suite("Console framing: reference frames")
struct ConsoleFramingReferenceTests {
    /// §8.1: the SMP v2 echo request `{"d": "hello"}`, seq 0x42.
    static let echoRequest = Hex.bytes("0a 00 00 09 00 00 42 00 a1 61 64 65 68 65 6c 6c 6f")
    static let echoFrame: [UInt8] = [0x06, 0x09] + Array("ABMKAAAJAABCAKFhZGVoZWxsb0YZ".utf8) + [0x0A]

    /// §8.2: the first image upload chunk, 146 bytes.
    static let uploadRequest = Hex.bytes("""
        0a 00 00 8a 00 01 10 01 a6 65 69 6d 61 67 65 00 63 6c 65 6e 19 02 48 63 6f 66 66 00
        63 73 68 61 58 20 c5 a5 fc a9 c9 0a 72 92 43 9b a4 a5 aa a1 9d 76 c0 b2 d5 96 72 07 3e fa 89 a3 ae 43 0a a5 e2 f7
        64 64 61 74 61 58 40 3d b8 f3 96 00 00 00 00 20 00 00 00 00 02 00 00 00 00 00 00 01 02 03 00 04 00 00 00 00 00 00 00
        00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f
        67 75 70 67 72 61 64 65 f4
        """)
    static let uploadFrames: [[UInt8]] = [
        [0x06, 0x09] + Array("AJQKAACKAAEQAaZlaW1hZ2UAY2xlbhkCSGNvZmYAY3NoYVggxaX8qckKcpJDm6SlqqGddsCy1ZZyBz76iaOuQwql4vdkZGF0YVhAPbjzlgAAAAAgAAAAAAIAAAAA".utf8) + [0x0A],
        [0x04, 0x14] + Array("AAABAgMABAAAAAAAAAAAAQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eH2d1cGdyYWRl9FSD".utf8) + [0x0A],
    ]

    @Test("CRC-16/XMODEM: the check value of \"123456789\" is 0x31C3; the reference packets' CRCs")
    func crc() {
        #expect(CRC16XMODEM.checksum(Array("123456789".utf8)) == 0x31C3)
        #expect(CRC16XMODEM.checksum(Self.echoRequest) == 0x4619)
        #expect(CRC16XMODEM.checksum(Self.uploadRequest) == 0x5483)
        // The residue of a packet followed by its big-endian CRC is zero.
        #expect(CRC16XMODEM.checksum(Self.uploadRequest + [0x54, 0x83]) == 0)
        #expect(CRC16XMODEM.checksum([]) == 0)
    }

    @Test("§8.1: the echo request is one 31-byte frame, byte for byte")
    func echoEncodes() throws {
        let encoder = try ConsoleFrameEncoder()
        #expect(try encoder.frames(for: Self.echoRequest) == [Self.echoFrame])
        #expect(encoder.encodedSize(ofPacket: Self.echoRequest.count) == Self.echoFrame.count)
    }

    @Test("§8.2: the 146-byte upload request is a 127-byte and a 79-byte frame, byte for byte")
    func uploadEncodes() throws {
        let encoder = try ConsoleFrameEncoder(lineLength: 127)
        let frames = try encoder.frames(for: Self.uploadRequest)
        #expect(frames == Self.uploadFrames)
        #expect(frames.map(\.count) == [127, 79])
        #expect(encoder.rawBytesPerFrame == 93)
        #expect(encoder.encodedSize(ofPacket: Self.uploadRequest.count) == 206)
    }

    @Test("§8.1 and §8.2 frames decode to the reference packets")
    func referenceDecodes() {
        var decoder = ConsoleFrameDecoder()
        let outputs = decoder.append(Self.echoFrame + Self.uploadFrames.joined())
        #expect(outputs == [.packet(Self.echoRequest), .packet(Self.uploadRequest)])
        #expect(decoder.bufferedByteCount == 0)
        #expect(!decoder.hasPartialPacket)
    }

    @Test("no frame is longer than the line length; every frame's text is whole base64 quanta", arguments: [7, 11, 20, 64, 127, 128, 512, 2048])
    func frameShape(lineLength: Int) throws {
        let encoder = try ConsoleFrameEncoder(lineLength: lineLength)
        for size in [1, 2, 3, 88, 89, 90, 91, 92, 93, 94, 95, 300, 2044] {
            let packet = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let frames = try encoder.frames(for: packet)
            #expect(frames.allSatisfy { $0.count <= lineLength && ($0.count - 3) % 4 == 0 && $0.last == 0x0A })
            #expect(frames.first?.prefix(2) == [0x06, 0x09])
            #expect(frames.dropFirst().allSatisfy { $0.prefix(2) == [0x04, 0x14] })
            // Padding only in the last frame.
            #expect(frames.dropLast().allSatisfy { !$0.contains(UInt8(ascii: "=")) })
            #expect(frames.joined().count == encoder.encodedSize(ofPacket: size))
            var decoder = ConsoleFrameDecoder()
            #expect(decoder.append(frames.joined()) == [.packet(packet)])
        }
    }

    @Test("the two CRC bytes are never split across frames")
    func crcStaysTogether() throws {
        let encoder = try ConsoleFrameEncoder(lineLength: 127)
        // Raw stream = 2 + packet + 2; with 93 raw bytes a frame, a 90-byte packet would put the
        // frame boundary between the CRC bytes (93 = 2 + 90 + 1).
        let frames = try encoder.frames(for: [UInt8](repeating: 0xA5, count: 90))
        #expect(frames.count == 2)
        #expect(frames[1].count == 3 + 8)  // 4 raw bytes: one data byte moved along with the whole CRC
    }

    @Test("line lengths below 7 or above the maximum are refused; packets above 65533 bytes are refused")
    func limits() throws {
        #expect(throws: ConsoleFramingError.invalidLineLength(6)) { try ConsoleFrameEncoder(lineLength: 6) }
        #expect(throws: ConsoleFramingError.invalidLineLength(ConsoleFrameEncoder.maximumLineLength + 1)) {
            try ConsoleFrameEncoder(lineLength: ConsoleFrameEncoder.maximumLineLength + 1)
        }
        let encoder = try ConsoleFrameEncoder()
        #expect(throws: ConsoleFramingError.packetTooLarge(size: 65534, limit: 65533)) {
            try encoder.frames(for: [UInt8](repeating: 0, count: 65534))
        }
        let largest = try encoder.frames(for: [UInt8](repeating: 1, count: 65533))
        var decoder = ConsoleFrameDecoder()
        #expect(decoder.append(largest.joined()) == [.packet([UInt8](repeating: 1, count: 65533))])
    }
}
