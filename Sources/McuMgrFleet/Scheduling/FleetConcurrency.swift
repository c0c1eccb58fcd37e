import McuMgrConnection

/// How many devices a fleet works on at once: an overall limit, and one lane per shared radio or
/// port, because devices behind one Bluetooth adapter or one serial port take turns.
///
/// By default UDP devices (and built-in simulators) all run at once, Bluetooth LE devices one per
/// adapter (or HCI controller), and serial devices one per port, as ``lane(of:)`` says.
public struct FleetConcurrency: Sendable, Hashable {
    /// The most devices at once; `nil` for no overall limit.
    public var limit: Int?
    /// Devices at once per Bluetooth adapter or HCI controller.
    public var perBluetoothAdapter: Int
    /// Devices at once per serial port.
    public var perSerialPort: Int

    /// Makes the limits; by default no overall limit and one device per adapter and per port.
    public init(limit: Int? = nil, perBluetoothAdapter: Int = 1, perSerialPort: Int = 1) {
        self.limit = limit
        self.perBluetoothAdapter = perBluetoothAdapter
        self.perSerialPort = perSerialPort
    }

    /// The lane a device reached through `spec` takes turns in; `nil` when it shares nothing (UDP,
    /// the built-in simulator).
    public static func lane(of spec: ConnectionSpec) -> FleetLane? {
        switch spec {
        case .udp, .simulator:
            return nil
        case .ble(let parameters):
            if let controller = parameters.controller { return FleetLane(kind: .hci, resource: controller.description) }
            return FleetLane(kind: .ble, resource: parameters.adapter ?? "default adapter")
        case .serial(let parameters):
            return FleetLane(kind: .serial, resource: parameters.device)
        }
    }

    /// How many devices of `lane` may run at once.
    public func capacity(of lane: FleetLane) -> Int {
        switch lane.kind {
        case .ble, .hci: return perBluetoothAdapter
        default: return perSerialPort
        }
    }

    /// Whether the limits can work (each at least 1).
    var problem: String? {
        if let limit, limit < 1 { return "the concurrency limit must be at least 1, not \(limit)" }
        if perBluetoothAdapter < 1 || perSerialPort < 1 { return "devices per adapter and per port must be at least 1" }
        return nil
    }
}

/// A shared resource devices take turns on: one Bluetooth adapter, HCI controller or serial port.
public struct FleetLane: Sendable, Hashable, CustomStringConvertible {
    /// The transport kind.
    public var kind: TransportKind
    /// The adapter, controller or port, e.g. `hci0`, `tcp:127.0.0.1:9001`, `/dev/ttyACM0`.
    public var resource: String

    /// Makes a lane.
    public init(kind: TransportKind, resource: String) {
        self.kind = kind
        self.resource = resource
    }

    /// `serial /dev/ttyACM0`.
    public var description: String { "\(kind.rawValue) \(resource)" }
}
