import CBOR

/// One SMP message: a header and its payload (a CBOR map for groups 0–63).
public struct SMPPacket: Sendable, Hashable {
    /// The header; its `length` always equals `payload.count`.
    public private(set) var header: SMPHeader
    /// The payload bytes.
    public let payload: [UInt8]
    /// The payload as CBOR, when the session already read it (and the nesting limit it read it
    /// with): an answer is decoded once, whoever looks at it first. Not part of the packet's value.
    private var decoded: (maximumDepth: Int, value: CBORValue)?

    /// Makes a packet, setting the header's length from the payload.
    public init(header: SMPHeader, payload: [UInt8]) throws(SMPFramingError) {
        guard payload.count <= Int(UInt16.max) else { throw .payloadTooLarge(count: payload.count) }
        var header = header
        header.length = UInt16(payload.count)
        self.header = header
        self.payload = payload
    }

    /// Reads exactly one packet: the header's length must match the bytes that follow it.
    public init(decoding bytes: some Collection<UInt8>) throws(SMPFramingError) {
        let header = try SMPHeader(decoding: bytes)
        let available = bytes.count - SMPHeader.size
        if Int(header.length) > available {
            throw .truncated(declared: Int(header.length), available: available)
        }
        if Int(header.length) < available {
            throw .trailingBytes(declared: Int(header.length), available: available)
        }
        self.header = header
        self.payload = Array(bytes.dropFirst(SMPHeader.size))
    }

    /// Splits a buffer holding several concatenated packets (as a device may receive them).
    public static func split(_ bytes: [UInt8]) throws(SMPFramingError) -> [SMPPacket] {
        var packets: [SMPPacket] = []
        var offset = 0
        while offset < bytes.count {
            let rest = bytes[offset...]
            let header = try SMPHeader(decoding: rest)
            let end = offset + SMPHeader.size + Int(header.length)
            guard end <= bytes.count else {
                throw .truncated(declared: Int(header.length), available: bytes.count - offset - SMPHeader.size)
            }
            packets.append(try SMPPacket(decoding: bytes[offset..<end]))
            offset = end
        }
        return packets
    }

    /// The packet on the wire: header then payload.
    public var bytes: [UInt8] { header.packet(payload: payload) }

    /// The payload parsed as CBOR (an empty payload reads as an empty map).
    public func decodedPayload(reader: CBORReader = CBORReader()) throws(CBORDecodingError) -> CBORValue {
        if payload.isEmpty { return .map([]) }
        if let decoded, decoded.maximumDepth == reader.maximumDepth { return decoded.value }
        return try reader.decode(payload)
    }

    /// This packet with its payload decoded by `reader` and kept, so that later readers of the
    /// payload do not decode it again; unchanged when the payload is not CBOR.
    func keepingDecodedPayload(reader: CBORReader = CBORReader()) -> (packet: SMPPacket, payload: CBORValue?) {
        guard let value = try? decodedPayload(reader: reader) else { return (self, nil) }
        var copy = self
        copy.decoded = (reader.maximumDepth, value)
        return (copy, value)
    }

    /// Packets are equal when their header and payload bytes are.
    public static func == (lhs: SMPPacket, rhs: SMPPacket) -> Bool {
        lhs.header == rhs.header && lhs.payload == rhs.payload
    }

    /// Hashes the header and payload bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(header)
        hasher.combine(payload)
    }
}
