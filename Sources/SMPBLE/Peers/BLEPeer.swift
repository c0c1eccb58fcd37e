/// A Bluetooth LE device as a user names it.
public enum BLEPeer: Sendable, Hashable {
    /// A device address, six hex bytes with colons, upper case: `AA:BB:CC:DD:EE:FF`.
    case address(String)
    /// The name the device advertises.
    case name(String)
    /// The first device a scan finds that advertises the SMP service.
    case scan
}

/// The type of a Bluetooth LE device address.
public enum BLEAddressType: String, Sendable, Hashable, CaseIterable {
    /// A public (IEEE-assigned) address.
    case `public`
    /// A random (static or private) address.
    case random
}
