/// OS application info request (group 0, command 7): `{"format": "sv..."}`, or `{}` for the kernel name.
public struct ApplicationInfoRequest: Codable, Sendable, Equatable {
    /// Characters choosing the items (`s n r v b m p i o`, or `a` for all); `nil` leaves the key out.
    public var format: String?

    /// Makes a request.
    public init(format: String? = nil) { self.format = format }
}

/// OS application info response: `{"output": text}`.
public struct ApplicationInfoResponse: Codable, Sendable, Equatable {
    /// The selected items, separated by single spaces, in the device's fixed order.
    public var output: String

    /// Makes a response.
    public init(output: String) { self.output = output }
}
