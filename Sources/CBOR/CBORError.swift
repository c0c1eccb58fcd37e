/// Why bytes could not be read as CBOR.
public enum CBORDecodingError: Error, Equatable, Sendable {
    /// The input ended inside an item that starts at `offset`.
    case truncated(offset: Int)
    /// The byte at `offset` does not start a well-formed item.
    case malformed(offset: Int, reason: String)
    /// A length at `offset` claims `claimed` bytes or items, but only `available` bytes follow.
    case lengthExceedsInput(offset: Int, claimed: UInt64, available: Int)
    /// Items nest deeper than the decoder's limit.
    case nestingTooDeep(limit: Int)
    /// One complete item was read, but `count` more bytes follow it.
    case trailingBytes(count: Int)
    /// A text string is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// The input holds no item at all.
    case empty
}

extension CBORDecodingError: CustomStringConvertible {
    /// A message a user can act on.
    public var description: String {
        switch self {
        case .truncated(let offset):
            return "CBOR input ends inside the item at byte \(offset)"
        case .malformed(let offset, let reason):
            return "malformed CBOR at byte \(offset): \(reason)"
        case .lengthExceedsInput(let offset, let claimed, let available):
            return "CBOR length at byte \(offset) claims \(claimed) but only \(available) bytes follow"
        case .nestingTooDeep(let limit):
            return "CBOR nests deeper than \(limit) levels"
        case .trailingBytes(let count):
            return "\(count) unexpected bytes follow the CBOR item"
        case .invalidUTF8(let offset):
            return "CBOR text string at byte \(offset) is not valid UTF-8"
        case .empty:
            return "no CBOR item in empty input"
        }
    }
}

/// Why a value could not be written as CBOR.
public enum CBOREncodingError: Error, Equatable, Sendable {
    /// libcbor refused to write a head (should not happen with a correctly sized buffer).
    case libcborFailed(String)
    /// A `Codable` value used a form CBOR cannot carry (e.g. a map key that is not a string or an integer).
    case unsupportedValue(String)
}

extension CBOREncodingError: CustomStringConvertible {
    /// A message a user can act on.
    public var description: String {
        switch self {
        case .libcborFailed(let what): return "libcbor could not encode \(what)"
        case .unsupportedValue(let what): return "cannot encode as CBOR: \(what)"
        }
    }
}
