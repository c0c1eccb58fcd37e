/// How the simulated device serves SMP as a Bluetooth LE GATT peripheral.
public struct GATTPeripheralConfiguration: Sendable, Hashable {
    /// The server's receive MTU offered in the MTU exchange (23–517; Zephyr's `smp_svr` with the
    /// Bluetooth overlay negotiates 498).
    public var maximumMTU: Int
    /// Whether the device collects fragmented requests by the SMP header's length, up to its
    /// `buf_size` (`CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY`); without it every write must hold one
    /// whole SMP packet.
    public var reassembly: Bool
    /// The link model pacing writes and notifications; nil for an instant link.
    public var link: BLELinkModel?
    /// The GAP Device Name characteristic's value (0x2A00); nil for the device's node name. A
    /// peripheral that advertises a name serves the same one here, as a Zephyr device does
    /// (`CONFIG_BT_DEVICE_NAME`): bluetoothd shows the name it read over GATT once connected.
    public var deviceName: String?
    /// Whether the SMP characteristic and its CCCD take writes only on an encrypted link, as a
    /// Zephyr device built with `CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW_AUTHEN` does. The simulator
    /// never encrypts, so a central that has not paired gets Insufficient Authentication (0x05)
    /// for its CCCD write: the device that needs pairing.
    public var requiresEncryption: Bool

    /// Makes a configuration; by default MTU 498, reassembly on, an instant link, no pairing needed.
    public init(
        maximumMTU: Int = 498, reassembly: Bool = true, link: BLELinkModel? = nil, deviceName: String? = nil, requiresEncryption: Bool = false
    ) {
        self.maximumMTU = min(max(maximumMTU, 23), 517)
        self.reassembly = reassembly
        self.link = link
        self.deviceName = deviceName
        self.requiresEncryption = requiresEncryption
    }
}

/// Why the simulated peripheral refused a connection.
public enum SimulatorGATTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The device is not advertising (it is rebooting, or a fault dropped the link for a while).
    case notAdvertising
    /// The peripheral was closed.
    case closed
    /// The connection could not be made (socketpair failed).
    case io(String)

    /// A one-line message.
    public var description: String {
        switch self {
        case .notAdvertising: return "the simulated device is not advertising (it is rebooting or its link is down)"
        case .closed: return "the simulated GATT peripheral is closed"
        case .io(let what): return what
        }
    }
}
