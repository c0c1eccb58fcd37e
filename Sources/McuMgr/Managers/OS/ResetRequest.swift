/// OS system reset request (group 0, command 5): `{}` or `{"force": true}`.
///
/// Zephyr decodes `force` as a boolean (the documentation calls it an integer); it only matters
/// when an application reset hook may refuse the reset.
public struct ResetRequest: Codable, Sendable, Equatable {
    /// `true` to ask the device to reset even if an application hook would refuse; `nil` leaves the key out.
    public var force: Bool?

    /// Makes a request; `force: false` sends an empty map.
    public init(force: Bool = false) { self.force = force ? true : nil }
}
