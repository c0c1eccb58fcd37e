#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns the bytes of a Zephyr console (SMP frames mixed with shell and log text) back into SMP
/// packets, as `mcumgr_serial_process_frag()` does, and resynchronises after anything else.
///
/// A frame marker (0x06 0x09 or 0x04 0x14) starts a frame wherever it appears, since base64 never
/// contains those bytes: text before it on the same line is console text, so garbage without a
/// newline cannot hide the next frame. Lines without a marker come out as ``ConsoleFrameDecoder/Output/text(_:)``.
/// Bounded: a line holds at most `maximumLineLength` bytes and a partial packet never more than
/// it has received; a declared length is checked against `maximumPacketSize`, never allocated.
public struct ConsoleFrameDecoder: Sendable {
    /// What the bytes yielded, in stream order.
    public enum Output: Sendable, Hashable {
        /// One SMP packet whose length and CRC were right.
        case packet([UInt8])
        /// A console line that is not a frame (without its line ending).
        case text([UInt8])
        /// Bytes that were dropped, and why.
        case dropped(ConsoleFramingError)
    }

    /// The largest packet accepted; larger declarations are skipped.
    public let maximumPacketSize: Int
    /// The longest line kept; longer lines are skipped up to their newline or the next marker.
    public let maximumLineLength: Int

    private var line: [UInt8] = []
    private var lineOverflowed = false
    private var previous: UInt8 = 0
    /// Decoded bytes of the packet in progress (packet, then CRC), after the length field.
    private var partial: [UInt8] = []
    /// The total (packet + CRC) the first frame declared, while a packet is in progress.
    private var declared: Int?
    /// Continuation frames of a packet already reported as dropped are skipped silently.
    private var skippingContinuations = false

    /// Makes a decoder for packets of up to `maximumPacketSize` bytes in lines of up to `maximumLineLength`.
    public init(maximumPacketSize: Int = ConsoleFrameEncoder.largestPacket, maximumLineLength: Int = ConsoleFrameEncoder.maximumLineLength) {
        self.maximumPacketSize = min(max(maximumPacketSize, 0), ConsoleFrameEncoder.largestPacket)
        self.maximumLineLength = max(maximumLineLength, 7)
    }

    /// Bytes held: the current line and the packet in progress.
    public var bufferedByteCount: Int { line.count + partial.count }

    /// Whether a packet is in progress (its first frame arrived, its last has not).
    public var hasPartialPacket: Bool { declared != nil }

    /// Takes the next bytes and returns what they complete.
    public mutating func append(_ bytes: some Collection<UInt8>) -> [Output] {
        var output: [Output] = []
        append(bytes) { output.append($0) }
        return output
    }

    /// Takes the next bytes and hands each packet, text line or drop to `deliver`, in order.
    public mutating func append(_ bytes: some Collection<UInt8>, deliver: (Output) -> Void) {
        for byte in bytes {
            defer { previous = byte }
            if byte == 0x0A {
                endLine(deliver)
                continue
            }
            if (previous == 0x06 && byte == 0x09) || (previous == 0x04 && byte == 0x14) {
                startFrame(marker: previous, deliver)
                continue
            }
            if line.count < maximumLineLength {
                line.append(byte)
            } else {
                lineOverflowed = true
            }
        }
    }

    /// Reports a packet left incomplete at the end of the stream and forgets it.
    public mutating func finish() -> [Output] {
        var output: [Output] = []
        if let declared {
            output.append(.dropped(.truncated(received: partial.count, declared: declared)))
        }
        reset()
        return output
    }

    /// Drops the line and the packet in progress (the link went down); returns the bytes dropped.
    @discardableResult
    public mutating func reset() -> Int {
        defer {
            line.removeAll()
            partial.removeAll()
            declared = nil
            lineOverflowed = false
            skippingContinuations = false
            previous = 0
        }
        return line.count + partial.count
    }

    /// A marker arrived: the line before it ends there (a frame whose newline was lost is still
    /// decoded; anything else is console text) and a new line starts at the marker.
    private mutating func startFrame(marker: UInt8, _ deliver: (Output) -> Void) {
        // The marker's first byte is already in the line, unless the line overflowed.
        if !lineOverflowed, line.last == marker { line.removeLast() }
        endLine(deliver)
        line.append(marker)
        line.append(marker == 0x06 ? 0x09 : 0x14)
    }

    /// The line is complete: decode it as a frame, or pass it on as text.
    private mutating func endLine(_ deliver: (Output) -> Void) {
        defer {
            line.removeAll(keepingCapacity: line.capacity <= 2 * 1024)
            lineOverflowed = false
        }
        if lineOverflowed {
            deliver(.dropped(.lineTooLong(limit: maximumLineLength)))
            return
        }
        guard line.count >= 2, line[0] == 0x06 && line[1] == 0x09 || line[0] == 0x04 && line[1] == 0x14 else {
            emitText(deliver)
            return
        }
        var end = line.count
        while end > 2, line[end - 1] == 0x0D || line[end - 1] == 0x20 { end -= 1 }
        let isFirst = line[0] == 0x06
        guard let decoded = Data(base64Encoded: Data(line[2..<end])) else {
            drop(.invalidBase64(frameLength: line.count + 1), deliver, skipRest: true)
            return
        }
        if isFirst {
            firstFrame([UInt8](decoded), deliver)
        } else {
            continuation([UInt8](decoded), deliver)
        }
    }

    private mutating func firstFrame(_ decoded: [UInt8], _ deliver: (Output) -> Void) {
        if let declared {
            deliver(.dropped(.interrupted(received: partial.count, declared: declared)))
            partial.removeAll()
            self.declared = nil
        }
        skippingContinuations = false
        guard decoded.count >= 2 else {
            drop(.missingLength, deliver, skipRest: true)
            return
        }
        let total = Int(decoded[0]) << 8 | Int(decoded[1])
        guard total >= 2 else {
            drop(.invalidLength(declared: total), deliver, skipRest: true)
            return
        }
        guard total - 2 <= maximumPacketSize else {
            drop(.oversized(declared: total, limit: maximumPacketSize), deliver, skipRest: true)
            return
        }
        declared = total
        take(decoded.dropFirst(2), deliver)
    }

    private mutating func continuation(_ decoded: [UInt8], _ deliver: (Output) -> Void) {
        guard declared != nil else {
            if !skippingContinuations { deliver(.dropped(.unexpectedContinuation)) }
            return
        }
        take(decoded[...], deliver)
    }

    /// Adds decoded bytes to the packet in progress; delivers it when complete and its CRC is right.
    private mutating func take(_ bytes: ArraySlice<UInt8>, _ deliver: (Output) -> Void) {
        guard let total = declared else { return }
        guard partial.count + bytes.count <= total else {
            drop(.lengthMismatch(declared: total, received: partial.count + bytes.count), deliver, skipRest: true)
            return
        }
        partial.append(contentsOf: bytes)
        guard partial.count == total else { return }
        defer {
            partial.removeAll(keepingCapacity: partial.capacity <= 4 * 1024)
            declared = nil
        }
        guard CRC16XMODEM.checksum(partial) == 0 else {
            deliver(.dropped(.checksumMismatch(packetLength: total - 2)))
            return
        }
        deliver(.packet(Array(partial.dropLast(2))))
    }

    /// Reports `error`, forgets the packet in progress and (with `skipRest`) its later frames.
    private mutating func drop(_ error: ConsoleFramingError, _ deliver: (Output) -> Void, skipRest: Bool) {
        deliver(.dropped(error))
        partial.removeAll()
        declared = nil
        skippingContinuations = skipRest
    }

    private mutating func emitText(_ deliver: (Output) -> Void) {
        var end = line.count
        while end > 0, line[end - 1] == 0x0D { end -= 1 }
        if end > 0 { deliver(.text(Array(line[0..<end]))) }
    }
}
