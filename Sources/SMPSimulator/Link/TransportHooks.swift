/// Sends one response packet back over the transport a request came from.
public typealias ResponseSink = @Sendable ([UInt8]) async -> Void

/// What the device may ask of a transport: to take its link down for a while.
struct TransportHooks: Sendable {
    /// What the transport is (`loopback`, `udp <address>`), for log lines.
    var name: String
    /// Drops the link now and refuses reconnection for the duration.
    var disconnect: @Sendable (Duration) async -> Void
    /// Also drop the link while the device reboots (as BLE does).
    var disconnectsOnReset: Bool
}
