import CBOR
import McuBoot
import McuMgr
import SMP
import SMPSerial
import SMPTestSupport

/// Inputs the micro-benchmarks share, made once outside the measured region.
enum Fixtures {
    /// The image size of the upload benchmarks (the default of `upload-throughput`).
    static let uploadSize = 512 * 1024
    /// A UDP datagram: the packet size every chunk fills.
    static let packetSize = 1472

    /// A session that is never used: upload targets need one to exist.
    static let idleClient = SMPClient(transport: LoopbackTransport())
    /// The image upload target of a 512 KiB upload.
    static let target = ImageUploadTarget(client: idleClient, image: 0, sha: Array(repeating: 0xab, count: 32))
    /// Bytes of the upload.
    static let uploadData: [UInt8] = (0..<uploadSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
    /// The data length of a later chunk in a 1472-byte packet, as the engine cuts it (alignment 4).
    static let chunkLength: Int = {
        let engine = UploadEngine(target: target, configuration: UploadConfiguration(byteAlignment: 4))
        return (try? engine.chunkSizes(totalLength: uploadSize, packetSize: packetSize).later) ?? 1400
    }()
    /// The answer to a later chunk: `{"off": …}` in a write response.
    static let uploadResponse: [UInt8] = {
        let payload = CBORWriter().encode(.textMap(["off": .int(200_000)]))
        let header = SMPHeader(version: .v2, operation: .writeResponse, length: UInt16(payload.count), group: 1, sequence: 42, command: 1)
        return header.packet(payload: payload)
    }()

    /// Responses as a device sends them: `count` upload answers back to back.
    static func responses(_ count: Int) -> [[UInt8]] {
        (0..<count).map { i in
            let payload = CBORWriter().encode(.textMap(["off": .int(i * chunkLength)]))
            let header = SMPHeader(version: .v2, operation: .writeResponse, length: UInt16(payload.count), group: 1, sequence: UInt8(i & 0xff), command: 1)
            return header.bytes + payload
        }
    }

    /// 64 KiB of large (2 KiB) SMP packets, as a reply stream that assemblers cut apart.
    static let largePackets: [[UInt8]] = (0..<32).map { i in
        let payload = CBORWriter().encode(.textMap(["off": .int(i), "data": .bytes(Array(repeating: UInt8(i), count: 2030))]))
        let header = SMPHeader(version: .v2, operation: .readResponse, length: UInt16(payload.count), group: 8, sequence: UInt8(i), command: 0)
        return header.bytes + payload
    }
    /// The same packets as one raw byte stream.
    static let rawStream: [UInt8] = largePackets.flatMap { $0 }
    /// The raw stream in 244-byte BLE notifications (ATT MTU 247).
    static let notifications: [ArraySlice<UInt8>] = pieces(of: rawStream, size: 244)
    /// The raw stream in 20-byte notifications (ATT MTU 23, no DLE).
    static let smallNotifications: [ArraySlice<UInt8>] = pieces(of: rawStream, size: 20)
    /// The same packets in Zephyr console frames (127-byte lines), read 64 bytes at a time as a pty delivers them.
    static let consoleReads: [ArraySlice<UInt8>] = {
        let encoder = try! ConsoleFrameEncoder()
        let stream = largePackets.flatMap { try! encoder.encode($0) }
        return pieces(of: stream, size: 64)
    }()
    /// The same packets as a raw serial stream read 64 bytes at a time.
    static let rawReads: [ArraySlice<UInt8>] = pieces(of: rawStream, size: 64)

    /// A 1 MiB MCUboot image (SHA-256 TLV), as imgtool lays it out.
    static let mebibyteImage: [UInt8] = {
        var builder = McuBootImageBuilder(payload: (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 7) }, version: McuBootVersion(major: 1, minor: 2, revision: 3))
        builder.headerSize = 0x200
        return try! builder.build()
    }()

    static func pieces(of bytes: [UInt8], size: Int) -> [ArraySlice<UInt8>] {
        stride(from: 0, to: bytes.count, by: size).map { bytes[$0..<min($0 + size, bytes.count)] }
    }
}
