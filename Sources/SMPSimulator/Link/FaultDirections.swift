/// The directions packet faults apply to.
public struct FaultDirections: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt8
    /// Makes directions from bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Requests, client to device.
    public static let requests = FaultDirections(rawValue: 1)
    /// Responses, device to client.
    public static let responses = FaultDirections(rawValue: 2)
    /// Both directions.
    public static let both: FaultDirections = [.requests, .responses]
}
