/// The 8-byte SMP header as the device reads it (smp-reference §1.1), without refusing any bit pattern.
struct RequestHeader: Sendable, Hashable {
    static let size = 8

    /// Bits 4–3 of byte 0 (0 = v1, 1 = v2, 2 and 3 reserved).
    let version: UInt8
    /// Bits 2–0 of byte 0.
    let operation: UInt8
    let length: Int
    let group: UInt16
    let sequence: UInt8
    let command: UInt8

    /// Reads the header at `offset`; nil when fewer than 8 bytes remain.
    init?(_ bytes: [UInt8], at offset: Int) {
        guard bytes.count - offset >= Self.size else { return nil }
        version = (bytes[offset] >> 3) & 0x03
        operation = bytes[offset] & 0x07
        length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        group = UInt16(bytes[offset + 4]) << 8 | UInt16(bytes[offset + 5])
        sequence = bytes[offset + 6]
        command = bytes[offset + 7]
    }

    /// A read request (OP 0).
    var isRead: Bool { operation == 0 }
    /// A write request (OP 2).
    var isWrite: Bool { operation == 2 }

    /// The response header: version min(request, 1), OP 1 for a read and 3 otherwise, flags 0,
    /// group, sequence and command copied (unless a quirk breaks the operation or the sequence).
    func responseBytes(payloadLength: Int, quirks: Set<SimulatorQuirk> = []) -> [UInt8] {
        let responseVersion = min(version, 1)
        let responseOperation: UInt8 = operation == 0 && !quirks.contains(.wrongOperation) ? 1 : 3
        let responseSequence = quirks.contains(.wrongSequence) ? sequence &+ 1 : sequence
        return [
            responseVersion << 3 | responseOperation, 0,
            UInt8(payloadLength >> 8), UInt8(payloadLength & 0xff),
            UInt8(group >> 8), UInt8(group & 0xff),
            responseSequence, command,
        ]
    }
}
