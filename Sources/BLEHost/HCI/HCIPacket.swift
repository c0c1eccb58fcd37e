/// The H4 packet indicator: the byte before every HCI packet on a UART, a TCP stream or the user channel.
public enum H4PacketType: UInt8, Sendable, Hashable, CaseIterable {
    /// Host to controller command.
    case command = 0x01
    /// ACL data, both ways.
    case acl = 0x02
    /// Synchronous (SCO) data; never used by this host, skipped when received.
    case sco = 0x03
    /// Controller to host event.
    case event = 0x04
    /// Isochronous data; never used by this host, skipped when received.
    case iso = 0x05
}

/// One whole HCI packet, without its H4 indicator byte.
public enum HCIPacket: Sendable, Hashable {
    /// A command: opcode (OGF << 10 | OCF) and parameters (at most 255 bytes).
    case command(opcode: UInt16, parameters: [UInt8])
    /// ACL data.
    case acl(ACLDataPacket)
    /// An event: code and parameters (at most 255 bytes).
    case event(code: UInt8, parameters: [UInt8])

    /// The packet with its H4 indicator byte, as written to a UART, a TCP stream or the user channel.
    public var h4Bytes: [UInt8] {
        switch self {
        case .command(let opcode, let parameters):
            precondition(parameters.count <= 255, "HCI command parameters are at most 255 bytes")
            return [H4PacketType.command.rawValue, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters
        case .acl(let packet):
            return [H4PacketType.acl.rawValue] + packet.bytes
        case .event(let code, let parameters):
            precondition(parameters.count <= 255, "HCI event parameters are at most 255 bytes")
            return [H4PacketType.event.rawValue, code, UInt8(parameters.count)] + parameters
        }
    }
}

/// The ACL packet-boundary flag (Core spec Vol 4 Part E 5.4.2).
public enum ACLBoundary: UInt8, Sendable, Hashable {
    /// First fragment of a non-automatically-flushable PDU (host to controller on LE).
    case firstNonFlushable = 0b00
    /// A continuation fragment.
    case continuation = 0b01
    /// First fragment of an automatically flushable PDU (controller to host).
    case firstFlushable = 0b10

    /// Whether the fragment starts an L2CAP PDU.
    public var isStart: Bool { self != .continuation }
}

/// One HCI ACL data packet: a connection handle, flags and a fragment of an L2CAP PDU.
public struct ACLDataPacket: Sendable, Hashable {
    /// The connection handle (12 bits).
    public var handle: UInt16
    /// Whether this fragment starts a PDU or continues one.
    public var boundary: ACLBoundary
    /// The broadcast flag (0 for point-to-point, the only kind on LE).
    public var broadcast: UInt8
    /// The fragment.
    public var data: [UInt8]

    /// Makes a packet.
    public init(handle: UInt16, boundary: ACLBoundary, broadcast: UInt8 = 0, data: [UInt8]) {
        self.handle = handle & 0x0FFF
        self.boundary = boundary
        self.broadcast = broadcast & 0x03
        self.data = data
    }

    /// The packet's bytes without the H4 indicator: handle and flags, length, data.
    public var bytes: [UInt8] {
        let first = handle | UInt16(boundary.rawValue) << 12 | UInt16(broadcast) << 14
        return [UInt8(first & 0xFF), UInt8(first >> 8), UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + data
    }

    /// Reads an ACL packet (without its H4 byte); the length field must match the bytes exactly.
    public static func decode(_ bytes: some Collection<UInt8>) throws(HCIDecodingError) -> ACLDataPacket {
        let b = Array(bytes)
        guard b.count >= 4 else { throw .truncated(what: "ACL header", needed: 4, available: b.count) }
        let first = UInt16(b[0]) | UInt16(b[1]) << 8
        let length = Int(b[2]) | Int(b[3]) << 8
        guard length <= b.count - 4 else { throw .lengthPastEnd(what: "ACL packet", length: length, available: b.count - 4) }
        let handle = first & 0x0FFF
        let flag = UInt8((first >> 12) & 0x03)
        guard let boundary = ACLBoundary(rawValue: flag) else { throw .invalidBoundaryFlag(handle: handle, flag: flag) }
        return ACLDataPacket(handle: handle, boundary: boundary, broadcast: UInt8(first >> 14), data: Array(b[4..<(4 + length)]))
    }
}
