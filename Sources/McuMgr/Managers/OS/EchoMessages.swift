/// OS echo request (group 0, command 0): `{"d": text}`.
public struct EchoRequest: Codable, Sendable, Equatable {
    /// The text the device should send back.
    public var text: String

    /// Makes a request for `text`.
    public init(text: String) { self.text = text }

    private enum CodingKeys: String, CodingKey { case text = "d" }
}

/// OS echo response: `{"r": text}`.
public struct EchoResponse: Codable, Sendable, Equatable {
    /// The text the device sent back.
    public var text: String

    /// Makes a response.
    public init(text: String) { self.text = text }

    private enum CodingKeys: String, CodingKey { case text = "r" }
}
