/// An HCI status or error code (Core spec Vol 1 Part F), with the spec's names for the ones a
/// central meets: command results and disconnection reasons.
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The byte on the wire.
    public let rawValue: UInt8

    /// Wraps a byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Success.
    public static let success = HCIStatus(rawValue: 0x00)
    /// The controller does not know the command.
    public static let unknownCommand = HCIStatus(rawValue: 0x01)
    /// The connection handle is not (or no longer) valid.
    public static let unknownConnectionIdentifier = HCIStatus(rawValue: 0x02)
    /// The link's supervision timeout expired: the peer went out of range or stopped answering.
    public static let connectionTimeout = HCIStatus(rawValue: 0x08)
    /// The command is not allowed now.
    public static let commandDisallowed = HCIStatus(rawValue: 0x0C)
    /// A parameter value is not supported.
    public static let unsupportedFeatureOrParameter = HCIStatus(rawValue: 0x11)
    /// Invalid command parameters.
    public static let invalidParameters = HCIStatus(rawValue: 0x12)
    /// The peer's user ended the connection (the usual reason for a disconnect).
    public static let remoteUserTerminated = HCIStatus(rawValue: 0x13)
    /// The peer ended the connection because of low resources.
    public static let remoteLowResources = HCIStatus(rawValue: 0x14)
    /// The peer ended the connection because it is powering off.
    public static let remotePowerOff = HCIStatus(rawValue: 0x15)
    /// This host ended the connection.
    public static let localHostTerminated = HCIStatus(rawValue: 0x16)
    /// The peer does not support a feature that was asked for.
    public static let unsupportedRemoteFeature = HCIStatus(rawValue: 0x1A)
    /// A link-layer procedure got no answer in time.
    public static let llResponseTimeout = HCIStatus(rawValue: 0x22)
    /// The connection's parameters are not acceptable.
    public static let unacceptableConnectionParameters = HCIStatus(rawValue: 0x3B)
    /// The connection could not be set up (the peer did not answer the connect request).
    public static let connectionFailedToBeEstablished = HCIStatus(rawValue: 0x3E)
    /// LE Create Connection was cancelled.
    public static let unknownAdvertisingIdentifierOrCancelled = HCIStatus(rawValue: 0x42)

    private static let names: [UInt8: String] = [
        0x00: "success", 0x01: "unknown HCI command", 0x02: "unknown connection identifier", 0x03: "hardware failure",
        0x05: "authentication failure", 0x06: "PIN or key missing", 0x07: "memory capacity exceeded",
        0x08: "connection timeout", 0x09: "connection limit exceeded", 0x0C: "command disallowed",
        0x0D: "connection rejected due to limited resources", 0x11: "unsupported feature or parameter value",
        0x12: "invalid HCI command parameters", 0x13: "remote user terminated connection",
        0x14: "remote device terminated connection due to low resources",
        0x15: "remote device terminated connection due to power off", 0x16: "connection terminated by local host",
        0x1A: "unsupported remote feature", 0x1F: "unspecified error", 0x22: "LL response timeout",
        0x23: "LL procedure collision", 0x28: "instant passed", 0x3A: "controller busy",
        0x3B: "unacceptable connection parameters", 0x3C: "advertising timeout",
        0x3D: "connection terminated due to MIC failure", 0x3E: "connection failed to be established",
        0x42: "unknown advertising identifier",
    ]

    /// The spec's name and the code, e.g. `remote user terminated connection (0x13)`.
    public var description: String {
        "\(Self.names[rawValue] ?? "HCI error") (0x\(hex(rawValue)))"
    }
}
