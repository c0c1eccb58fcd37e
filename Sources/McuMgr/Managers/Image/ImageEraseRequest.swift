/// Image erase request (group 1, command 5): `{}` or `{"slot": uint}`.
public struct ImageEraseRequest: Codable, Sendable, Equatable {
    /// The slot to erase; `nil` lets the device choose (the running image's other slot).
    public var slot: Int?

    /// Makes a request.
    public init(slot: Int? = nil) { self.slot = slot }
}
