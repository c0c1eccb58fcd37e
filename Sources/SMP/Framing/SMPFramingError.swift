/// Why bytes are not a well-formed SMP packet.
public enum SMPFramingError: Error, Hashable, Sendable {
    /// Fewer than 8 bytes: no header.
    case shortHeader(count: Int)
    /// The version bits hold a reserved value.
    case unsupportedVersion(UInt8)
    /// The operation bits hold a value other than 0–3.
    case unknownOperation(UInt8)
    /// The header declares more payload bytes than arrived.
    case truncated(declared: Int, available: Int)
    /// More bytes arrived than the header declares.
    case trailingBytes(declared: Int, available: Int)
    /// A payload longer than the 16-bit length field can describe.
    case payloadTooLarge(count: Int)
}

extension SMPFramingError: CustomStringConvertible {
    /// A message naming the problem.
    public var description: String {
        switch self {
        case .shortHeader(let count):
            return "SMP packet of \(count) bytes is shorter than the 8-byte header"
        case .unsupportedVersion(let v):
            return "SMP header carries reserved protocol version \(v)"
        case .unknownOperation(let op):
            return "SMP header carries unknown operation \(op) (expected 0-3)"
        case .truncated(let declared, let available):
            return "SMP header declares \(declared) payload bytes but only \(available) arrived"
        case .trailingBytes(let declared, let available):
            return "SMP header declares \(declared) payload bytes but \(available) arrived"
        case .payloadTooLarge(let count):
            return "SMP payload of \(count) bytes exceeds the 65535-byte limit of the header"
        }
    }
}
