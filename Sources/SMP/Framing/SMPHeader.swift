/// The protocol version carried in bits 4–3 of the header's first byte.
public enum SMPVersion: UInt8, Sendable, Hashable, CaseIterable {
    /// SMP version 1 (legacy): group errors arrive translated into a top-level `rc`.
    case v1 = 0
    /// SMP version 2: group errors arrive as `err {group, rc}`.
    case v2 = 1
}

/// The operation carried in bits 2–0 of the header's first byte.
public enum SMPOperation: UInt8, Sendable, Hashable, CaseIterable {
    /// A read request.
    case read = 0
    /// The response to a read.
    case readResponse = 1
    /// A write request.
    case write = 2
    /// The response to a write.
    case writeResponse = 3

    /// Whether this operation is a response.
    public var isResponse: Bool { self == .readResponse || self == .writeResponse }

    /// The operation a device answers this request with (read → read response, anything else → write response).
    public var response: SMPOperation { self == .read ? .readResponse : .writeResponse }
}

/// The 8-byte SMP header (all multi-byte fields big-endian).
public struct SMPHeader: Sendable, Hashable {
    /// Size of the header on the wire.
    public static let size = 8

    /// Protocol version.
    public var version: SMPVersion
    /// Operation.
    public var operation: SMPOperation
    /// Flags (none are defined; send 0).
    public var flags: UInt8
    /// Length of the payload that follows the header.
    public var length: UInt16
    /// Management group.
    public var group: UInt16
    /// Sequence number chosen by the requester and echoed in the response.
    public var sequence: UInt8
    /// Command within the group.
    public var command: UInt8

    /// Makes a header.
    public init(
        version: SMPVersion = .v2, operation: SMPOperation, flags: UInt8 = 0, length: UInt16,
        group: UInt16, sequence: UInt8, command: UInt8
    ) {
        self.version = version
        self.operation = operation
        self.flags = flags
        self.length = length
        self.group = group
        self.sequence = sequence
        self.command = command
    }

    /// Reads a header from the first 8 bytes of `bytes`.
    public init(decoding bytes: some Collection<UInt8>) throws(SMPFramingError) {
        guard bytes.count >= SMPHeader.size else { throw .shortHeader(count: bytes.count) }
        // In place when the bytes are contiguous (an array, a slice of one): no copy of the packet.
        let b = bytes.withContiguousStorageIfAvailable(Self.firstEight)
            ?? Array(bytes.prefix(SMPHeader.size)).withUnsafeBufferPointer(Self.firstEight)
        let versionBits = (b.0 >> 3) & 0x03
        guard let version = SMPVersion(rawValue: versionBits) else { throw .unsupportedVersion(versionBits) }
        let opBits = b.0 & 0x07
        guard let operation = SMPOperation(rawValue: opBits) else { throw .unknownOperation(opBits) }
        self.init(
            version: version, operation: operation, flags: b.1,
            length: UInt16(b.2) << 8 | UInt16(b.3),
            group: UInt16(b.4) << 8 | UInt16(b.5),
            sequence: b.6, command: b.7
        )
    }

    private static func firstEight(_ p: UnsafeBufferPointer<UInt8>) -> (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) {
        (p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7])
    }

    /// The 8 bytes of this header.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(SMPHeader.size)
        append(to: &out)
        return out
    }

    /// This header followed by `payload`, built in one allocation.
    public func packet(payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(SMPHeader.size + payload.count)
        append(to: &out)
        out.append(contentsOf: payload)
        return out
    }

    /// Appends the 8 bytes of this header to `out`.
    private func append(to out: inout [UInt8]) {
        out.append(version.rawValue << 3 | operation.rawValue)
        out.append(flags)
        out.append(UInt8(length >> 8))
        out.append(UInt8(length & 0xff))
        out.append(UInt8(group >> 8))
        out.append(UInt8(group & 0xff))
        out.append(sequence)
        out.append(command)
    }
}
