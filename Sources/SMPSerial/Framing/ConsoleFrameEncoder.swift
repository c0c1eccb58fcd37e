#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Frames SMP packets for a Zephyr console (`MCUMGR_TRANSPORT_UART`, shell): the raw stream
/// `be16(len + 2) ‖ packet ‖ be16(CRC-16/XMODEM)` in base64, cut into lines of at most
/// `lineLength` bytes, the first starting 0x06 0x09, the rest 0x04 0x14, each ending with '\n'.
///
/// Each frame's base64 text is a whole number of 4-character quanta and decodes on its own; as
/// Zephyr's sender does, the 2 CRC bytes are never split across frames.
public struct ConsoleFrameEncoder: Sendable, Hashable {
    /// The marker of a packet's first frame.
    public static let firstFrameMarker: [UInt8] = [0x06, 0x09]
    /// The marker of every further frame of a packet.
    public static let continuationMarker: [UInt8] = [0x04, 0x14]
    /// Zephyr's `MCUMGR_SERIAL_MAX_FRAME`: 127 bytes with marker and newline.
    public static let defaultLineLength = 127
    /// The longest line this encoder makes (devices with larger line buffers exist; none this large).
    public static let maximumLineLength = 8192
    /// The largest packet the 16-bit length field can carry with its 2 CRC bytes.
    public static let largestPacket = Int(UInt16.max) - 2

    /// The longest frame made, marker and newline included.
    public let lineLength: Int

    /// Makes an encoder for lines of at most `lineLength` bytes (7 to ``maximumLineLength``).
    public init(lineLength: Int = ConsoleFrameEncoder.defaultLineLength) throws(ConsoleFramingError) {
        guard (7...Self.maximumLineLength).contains(lineLength) else { throw .invalidLineLength(lineLength) }
        self.lineLength = lineLength
    }

    /// Raw (decoded) bytes one frame carries: 93 for 127-byte lines.
    public var rawBytesPerFrame: Int { Self.rawBytesPerFrame(lineLength: lineLength) }

    /// Raw bytes a frame of `lineLength` carries: 3 bytes per 4 base64 characters between marker and newline.
    public static func rawBytesPerFrame(lineLength: Int) -> Int { max(0, (lineLength - 3) / 4) * 3 }

    /// The frames of one packet, in order, each ending with '\n'.
    public func frames(for packet: [UInt8]) throws(ConsoleFramingError) -> [[UInt8]] {
        guard packet.count <= Self.largestPacket else { throw .packetTooLarge(size: packet.count, limit: Self.largestPacket) }
        let crc = CRC16XMODEM.checksum(packet)
        let total = packet.count + 2
        var raw: [UInt8] = []
        raw.reserveCapacity(total + 2)
        raw.append(UInt8(total >> 8))
        raw.append(UInt8(total & 0xFF))
        raw.append(contentsOf: packet)
        raw.append(UInt8(crc >> 8))
        raw.append(UInt8(crc & 0xFF))

        return frameRanges(rawCount: raw.count).map { range in
            var frame = range.lowerBound == 0 ? Self.firstFrameMarker : Self.continuationMarker
            frame.append(contentsOf: Data(raw[range]).base64EncodedString().utf8)
            frame.append(0x0A)
            return frame
        }
    }

    /// The frames of one packet, concatenated as they go on the wire.
    public func encode(_ packet: [UInt8]) throws(ConsoleFramingError) -> [UInt8] {
        try frames(for: packet).flatMap { $0 }
    }

    /// Bytes on the wire for a packet of `size` bytes (markers, base64, newlines).
    public func encodedSize(ofPacket size: Int) -> Int {
        frameRanges(rawCount: size + 4).reduce(0) { $0 + 3 + ($1.count + 2) / 3 * 4 }
    }

    /// Where the frames cut a raw stream of `rawCount` bytes: full frames, except that a frame
    /// never ends between the two CRC bytes (it ends one quantum earlier instead).
    private func frameRanges(rawCount: Int) -> [Range<Int>] {
        let perFrame = rawBytesPerFrame
        var ranges: [Range<Int>] = []
        var start = 0
        while start < rawCount {
            var end = min(start + perFrame, rawCount)
            if end == rawCount - 1 && perFrame >= 6 { end -= 3 }
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }
}
