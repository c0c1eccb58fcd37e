/// What ``H4StreamDecoder`` makes of the bytes it is given.
public enum H4DecoderOutput: Sendable, Hashable {
    /// One whole packet.
    case packet(HCIPacket)
    /// A packet this host does not use (SCO, ISO), skipped whole.
    case ignored(H4PacketType, length: Int)
    /// A packet that could not be taken (too long, malformed ACL header); its bytes were skipped.
    case skipped(HCIDecodingError)
}

/// Splits an H4 byte stream (a UART, a TCP connection to a virtual controller, the user channel's
/// reads) into whole HCI packets.
///
/// Bounded: it holds at most one packet's header and the bytes of that packet that have arrived,
/// and a packet whose length field exceeds the limit is skipped as its bytes arrive, never buffered.
/// An unknown packet-type byte means the stream is out of step; ``append(_:_:)`` throws then, and
/// the decoder starts afresh at the next byte if the caller goes on.
public struct H4StreamDecoder: Sendable {
    /// The largest ACL data length accepted; longer ACL packets are skipped.
    public let maximumACLLength: Int

    private var current: [UInt8] = []
    private var needed = 1
    private var headerRead = false
    private var skipping = 0

    /// Makes a decoder that accepts ACL packets of up to `maximumACLLength` data bytes.
    public init(maximumACLLength: Int = 4096) {
        self.maximumACLLength = max(0, min(maximumACLLength, 65_535))
    }

    /// Bytes of an incomplete packet held now.
    public var bufferedCount: Int { current.count }

    /// Feeds `input`, calling `output` for each packet completed or skipped, in order.
    public mutating func append(_ input: some Collection<UInt8>, _ output: (H4DecoderOutput) -> Void) throws(HCIDecodingError) {
        var index = input.startIndex
        while index != input.endIndex {
            if skipping > 0 {
                let step = min(skipping, input.distance(from: index, to: input.endIndex))
                index = input.index(index, offsetBy: step)
                skipping -= step
                continue
            }
            let step = min(needed - current.count, input.distance(from: index, to: input.endIndex))
            let next = input.index(index, offsetBy: step)
            current.append(contentsOf: input[index..<next])
            index = next
            guard current.count == needed else { break }
            if current.count == 1 {
                guard let type = H4PacketType(rawValue: current[0]) else {
                    let byte = current[0]
                    reset()
                    throw .unknownPacketType(byte)
                }
                needed = 1 + Self.headerLength(type)
                continue
            }
            if !headerRead {
                headerRead = true
                let type = H4PacketType(rawValue: current[0])!
                let length = Self.payloadLength(type, header: current)
                if type == .sco || type == .iso || (type == .acl && length > maximumACLLength) {
                    if type == .acl {
                        output(.skipped(.packetTooLong(type: "ACL", length: length, limit: maximumACLLength)))
                    } else {
                        output(.ignored(type, length: length))
                    }
                    skipping = length
                    reset()
                    continue
                }
                needed += length
                if length > 0 { continue }
            }
            emit(output)
        }
    }

    private mutating func emit(_ output: (H4DecoderOutput) -> Void) {
        let bytes = current
        reset()
        switch H4PacketType(rawValue: bytes[0])! {
        case .command:
            output(.packet(.command(opcode: UInt16(bytes[1]) | UInt16(bytes[2]) << 8, parameters: Array(bytes[4...]))))
        case .event:
            output(.packet(.event(code: bytes[1], parameters: Array(bytes[3...]))))
        case .acl:
            do {
                output(.packet(.acl(try ACLDataPacket.decode(bytes[1...]))))
            } catch {
                output(.skipped(error))
            }
        case .sco, .iso:
            break
        }
    }

    private mutating func reset() {
        current.removeAll(keepingCapacity: true)
        needed = 1
        headerRead = false
    }

    /// Header bytes after the indicator.
    static func headerLength(_ type: H4PacketType) -> Int {
        switch type {
        case .command: return 3
        case .acl: return 4
        case .sco: return 3
        case .event: return 2
        case .iso: return 4
        }
    }

    /// The payload length the header announces (`header` starts with the indicator byte).
    static func payloadLength(_ type: H4PacketType, header: [UInt8]) -> Int {
        switch type {
        case .command: return Int(header[3])
        case .acl: return Int(header[3]) | Int(header[4]) << 8
        case .sco: return Int(header[3])
        case .event: return Int(header[2])
        case .iso: return (Int(header[3]) | Int(header[4]) << 8) & 0x3FFF
        }
    }
}
