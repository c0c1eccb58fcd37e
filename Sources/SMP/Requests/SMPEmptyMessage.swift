/// The empty CBOR map: the request body of commands that take no arguments, and the response of
/// commands that answer nothing but success.
public struct SMPEmptyMessage: Codable, Sendable, Equatable {
    /// Makes the empty message.
    public init() {}

    /// Encodes an empty map.
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: NoKeys.self)
    }

    /// Accepts any map (a success response may still carry `rc: 0` or other keys).
    public init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: NoKeys.self)
    }

    private enum NoKeys: CodingKey {}
}

/// A request without fields: it encodes as the empty map.
public protocol SMPFieldlessRequest: SMPRequest {}

extension SMPFieldlessRequest {
    /// Encodes an empty map.
    public func encode(to encoder: any Encoder) throws {
        try SMPEmptyMessage().encode(to: encoder)
    }
}
