/// OS date-time message (group 0, command 4): `{"datetime": "YYYY-MM-DDTHH:MM:SS"}`, the body of
/// a set request and of a get response.
public struct DateTimeMessage: Codable, Sendable, Equatable {
    /// The device's wall-clock time as text.
    public var datetime: String

    /// Makes a message.
    public init(datetime: String) { self.datetime = datetime }
}
