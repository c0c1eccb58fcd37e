/// Why bytes from a controller could not be read as an HCI packet, an event or an L2CAP PDU.
///
/// Every decoder of this target reports bad input with one of these, bounded by the bytes that
/// arrived: none allocates what a length field claims before the bytes exist.
public enum HCIDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The H4 packet-type byte is none of command, ACL, SCO, event or ISO: the stream is out of step.
    case unknownPacketType(UInt8)
    /// A packet's length field exceeds what this host accepts; its bytes are skipped.
    case packetTooLong(type: String, length: Int, limit: Int)
    /// A packet or parameter block ends before a field it must hold.
    case truncated(what: String, needed: Int, available: Int)
    /// A length field inside a packet points past the packet's end.
    case lengthPastEnd(what: String, length: Int, available: Int)
    /// An ACL continuation fragment arrived for a handle with no PDU in progress.
    case continuationWithoutStart(handle: UInt16)
    /// An ACL fragment arrived for a connection handle this host does not know.
    case unknownHandle(UInt16)
    /// An L2CAP PDU's length exceeds the channel's MTU; the PDU is dropped.
    case pduTooLarge(length: Int, limit: Int)
    /// ACL fragments carried more bytes than the L2CAP header announced.
    case fragmentOverrun(handle: UInt16, expected: Int, received: Int)
    /// A start fragment arrived while another PDU on the same handle was incomplete (that one is dropped).
    case startDuringPDU(handle: UInt16, dropped: Int)
    /// An ACL packet's packet-boundary flag is reserved (0b11).
    case invalidBoundaryFlag(handle: UInt16, flag: UInt8)

    /// A one-line message.
    public var description: String {
        switch self {
        case .unknownPacketType(let type):
            return "unknown HCI packet type 0x\(hex(type)): the byte stream from the controller is out of step"
        case .packetTooLong(let type, let length, let limit):
            return "HCI \(type) packet of \(length) bytes exceeds the \(limit)-byte limit; skipped"
        case .truncated(let what, let needed, let available):
            return "truncated \(what): needs \(needed) bytes, has \(available)"
        case .lengthPastEnd(let what, let length, let available):
            return "\(what) claims \(length) bytes but only \(available) follow"
        case .continuationWithoutStart(let handle):
            return "ACL continuation fragment on handle 0x\(hex(handle)) without a start fragment; ignored"
        case .unknownHandle(let handle):
            return "ACL data for unknown connection handle 0x\(hex(handle)); ignored"
        case .pduTooLarge(let length, let limit):
            return "L2CAP PDU of \(length) bytes exceeds the channel MTU of \(limit); dropped"
        case .fragmentOverrun(let handle, let expected, let received):
            return "ACL fragments on handle 0x\(hex(handle)) carried \(received) bytes for an L2CAP PDU of \(expected); dropped"
        case .startDuringPDU(let handle, let dropped):
            return "ACL start fragment on handle 0x\(hex(handle)) while a PDU was incomplete; \(dropped) bytes dropped"
        case .invalidBoundaryFlag(let handle, let flag):
            return "ACL packet on handle 0x\(hex(handle)) with reserved packet-boundary flag \(flag); ignored"
        }
    }
}

/// Upper-case hex, at least two digits (four for 16-bit values).
func hex<T: FixedWidthInteger>(_ value: T) -> String {
    let text = String(value, radix: 16, uppercase: true)
    let width = T.bitWidth / 4
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}
