/// Identifies one transport serving the device (a loopback link, a UDP socket, …).
public struct TransportID: Sendable, Hashable, CustomStringConvertible {
    /// The number, unique per device.
    public let rawValue: Int

    /// A number.
    public var description: String { "transport \(rawValue)" }
}
