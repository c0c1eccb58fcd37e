import SMPBLE
import SMPUDP

/// How to reach a device: a transport kind and its parameters, parsed from command-line options,
/// from Go `mcumgr`'s `--conntype`/`--connstring`, or from a saved profile.
///
/// A spec is only a description; ``ConnectionFactory`` turns it into a connected transport.
public enum ConnectionSpec: Sendable, Hashable {
    /// A device (or `mcumgr-sim`) over UDP.
    case udp(UDPEndpoint)
    /// A device over Bluetooth LE: through bluetoothd's D-Bus API or BlueZ's kernel sockets (see
    /// ``BLEConnectionParameters/stack``) or, with a controller, our own LE host over HCI.
    case ble(BLEConnectionParameters)
    /// A device on a serial port (Zephyr's SMP console framing, or raw).
    case serial(SerialConnectionParameters)
    /// The built-in simulated device, in memory.
    case simulator

    /// The kind of transport the spec needs; ``ConnectionFactory`` keeps one connector per kind.
    public var kind: TransportKind {
        switch self {
        case .udp: return .udp
        case .ble(let parameters):
            if parameters.controller != nil { return .hci }
            return parameters.stack == .dbus ? .bluez : .ble
        case .serial: return .serial
        case .simulator: return .simulator
        }
    }
}

/// The kinds of transport a ``ConnectionSpec`` can name.
public enum TransportKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// UDP (SwiftNIO).
    case udp
    /// Bluetooth LE through BlueZ: bluetoothd's D-Bus API when it answers on the system bus, else
    /// the kernel's L2CAP sockets (only the sockets when the spec's stack is ``BLEStack/socket``).
    case ble
    /// Bluetooth LE through bluetoothd's D-Bus API only (``BLEStack/dbus``).
    case bluez
    /// Bluetooth LE through our own LE host on an HCI controller (user channel, UART or TCP).
    case hci
    /// A serial port or pseudo-terminal.
    case serial
    /// The built-in simulated device.
    case simulator

    /// A name for messages: `UDP`, `Bluetooth LE`, `Bluetooth LE through bluetoothd`, `Bluetooth LE over HCI`, `serial`, `the built-in simulator`.
    public var description: String {
        switch self {
        case .udp: return "UDP"
        case .ble: return "Bluetooth LE"
        case .bluez: return "Bluetooth LE through bluetoothd"
        case .hci: return "Bluetooth LE over HCI"
        case .serial: return "serial"
        case .simulator: return "the built-in simulator"
        }
    }
}

/// Which Bluetooth LE device to connect to, and how.
public struct BLEConnectionParameters: Sendable, Hashable {
    /// The device: by address, by advertised name, or the first SMP device a scan finds.
    public var peer: BLEPeer
    /// The address's type; `nil` lets the transport choose (public, then random).
    public var addressType: BLEAddressType?
    /// The local adapter, by name (`hci0`) or address; `nil` for the default one.
    public var adapter: String?
    /// The link's security level; `nil` for the transport's default (low).
    public var security: BLESecurity?
    /// An HCI controller for our own LE host; `nil` uses the kernel's Bluetooth stack.
    public var controller: HCIController?
    /// Which part of BlueZ carries the link; `nil` chooses bluetoothd's D-Bus API when it answers
    /// on the system bus (and no ``security`` level is asked for), else the kernel's sockets.
    public var stack: BLEStack?

    /// Makes the parameters.
    public init(
        peer: BLEPeer, addressType: BLEAddressType? = nil, adapter: String? = nil, security: BLESecurity? = nil,
        controller: HCIController? = nil, stack: BLEStack? = nil
    ) {
        self.peer = peer
        self.addressType = addressType
        self.adapter = adapter
        self.security = security
        self.controller = controller
        self.stack = stack
    }
}

/// The part of BlueZ a Bluetooth LE connection goes through.
public enum BLEStack: String, Sendable, Hashable, CaseIterable {
    /// bluetoothd's D-Bus API (`org.bluez`): no privileges, the adapter shared with other programs.
    case dbus
    /// The kernel's L2CAP LE socket on the ATT channel (needs `CAP_NET_RAW` to scan; bluetoothd optional).
    case socket
}

/// A Bluetooth LE link's security level, as BlueZ's `BT_SECURITY` names it.
public enum BLESecurity: String, Sendable, Hashable, CaseIterable {
    /// No encryption.
    case low
    /// Encrypted, unauthenticated pairing.
    case medium
    /// Encrypted, authenticated pairing.
    case high
}

/// Which serial port to open, and how.
public struct SerialConnectionParameters: Sendable, Hashable {
    /// The device path, e.g. `/dev/ttyACM0`.
    public var device: String
    /// The baud rate; `nil` for the transport's default (115200).
    public var baudRate: Int?
    /// The largest SMP packet to send (Go `mcumgr`'s `mtu`); `nil` for the transport's default.
    public var maximumPacketSize: Int?
    /// The console line length a frame may fill (Zephyr's default is 127); `nil` for the default.
    public var lineLength: Int?
    /// Unframed SMP packets on the wire instead of the console framing.
    public var raw: Bool
    /// Hardware flow control (RTS/CTS).
    public var hardwareFlowControl: Bool

    /// Makes the parameters.
    public init(
        device: String, baudRate: Int? = nil, maximumPacketSize: Int? = nil, lineLength: Int? = nil, raw: Bool = false,
        hardwareFlowControl: Bool = false
    ) {
        self.device = device
        self.baudRate = baudRate
        self.maximumPacketSize = maximumPacketSize
        self.lineLength = lineLength
        self.raw = raw
        self.hardwareFlowControl = hardwareFlowControl
    }
}
