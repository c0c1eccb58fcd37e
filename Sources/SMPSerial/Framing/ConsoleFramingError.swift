/// Why the console framing dropped bytes or refused a packet; every case says what was lost.
public enum ConsoleFramingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A frame's text after its marker is not valid base64; the packet in progress was dropped.
    case invalidBase64(frameLength: Int)
    /// A first frame too short to hold the 2-byte length; the packet was dropped.
    case missingLength
    /// A first frame declares a total length (packet + 2 CRC bytes) below 2; the packet was dropped.
    case invalidLength(declared: Int)
    /// A first frame declares a packet larger than the receiver takes; its frames are skipped.
    case oversized(declared: Int, limit: Int)
    /// The frames carried more bytes than the first frame declared; the packet was dropped.
    case lengthMismatch(declared: Int, received: Int)
    /// The CRC-16/XMODEM over packet and checksum is not zero; the packet was dropped.
    case checksumMismatch(packetLength: Int)
    /// A continuation frame arrived with no packet in progress; it was skipped.
    case unexpectedContinuation
    /// A new first frame arrived before the packet in progress was complete; the partial packet was dropped.
    case interrupted(received: Int, declared: Int)
    /// A line longer than the receiver's limit was skipped up to its newline.
    case lineTooLong(limit: Int)
    /// The stream ended (or the link went down) in the middle of a packet.
    case truncated(received: Int, declared: Int)
    /// A packet too large for the 16-bit length field (packet + CRC ≤ 65535 bytes) cannot be framed.
    case packetTooLarge(size: Int, limit: Int)
    /// A line length that cannot carry one base64 quantum between marker and newline.
    case invalidLineLength(Int)

    /// A one-line message.
    public var description: String {
        switch self {
        case .invalidBase64(let length):
            return "a \(length)-byte console frame holds invalid base64; the packet in progress was dropped"
        case .missingLength:
            return "a first console frame is too short to hold the packet length; dropped"
        case .invalidLength(let declared):
            return "a first console frame declares a length of \(declared), less than the 2 CRC bytes; dropped"
        case .oversized(let declared, let limit):
            return "a console frame declares a \(declared - 2)-byte packet, more than the \(limit)-byte limit; skipped"
        case .lengthMismatch(let declared, let received):
            return "console frames carried \(received) bytes where \(declared) were declared; the packet was dropped"
        case .checksumMismatch(let length):
            return "CRC-16 mismatch on a \(length)-byte packet from the console; dropped"
        case .unexpectedContinuation:
            return "a continuation console frame arrived with no packet in progress; skipped"
        case .interrupted(let received, let declared):
            return "a new packet started after \(received) of \(declared) bytes of the previous one; the partial packet was dropped"
        case .lineTooLong(let limit):
            return "a console line longer than \(limit) bytes was skipped"
        case .truncated(let received, let declared):
            return "the stream ended after \(received) of \(declared) bytes of a packet"
        case .packetTooLarge(let size, let limit):
            return "a \(size)-byte packet exceeds the \(limit)-byte limit of console framing"
        case .invalidLineLength(let length):
            return "line length \(length) cannot carry console frames (it must be 7 to \(ConsoleFrameEncoder.maximumLineLength))"
        }
    }
}
