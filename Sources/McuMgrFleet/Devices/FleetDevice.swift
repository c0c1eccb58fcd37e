import McuMgrConnection

/// One device of a fleet: how to reach it and, optionally, a name people know it by.
///
/// Within a fleet run a device is identified by ``index``, its position in the list; every event
/// and report line carries the device, so consumers never match devices by address.
public struct FleetDevice: Sendable, Hashable {
    /// The device's position in the fleet (0 for the first), set when the fleet is made.
    public internal(set) var index: Int
    /// The name given in the devices file, if any.
    public var name: String?
    /// How to reach the device.
    public var target: FleetTarget

    /// Makes a device; the fleet numbers its devices in order.
    public init(_ target: FleetTarget, name: String? = nil) {
        self.index = 0
        self.name = name
        self.target = target
    }

    /// Makes a device reached through `spec`.
    public init(_ spec: ConnectionSpec, name: String? = nil) {
        self.init(.spec(spec), name: name)
    }

    /// The name, else the target as written (`udp:127.0.0.2:1337`, `profile:bench`).
    public var label: String { name ?? target.description }

    /// The device as a devices file line: the target, then the name, each in double quotes when
    /// it holds a space (reading the line back gives the same device).
    public var devicesFileLine: String {
        func quoted(_ text: String) -> String { text.contains(where: { $0 == " " || $0 == "\t" || $0 == "#" }) ? "\"\(text)\"" : text }
        return quoted(target.description) + (name.map { " " + quoted($0) } ?? "")
    }

    /// `devices` numbered 0, 1, 2… in order.
    public static func numbered(_ devices: [FleetDevice]) -> [FleetDevice] {
        devices.enumerated().map { index, device in
            var device = device
            device.index = index
            return device
        }
    }
}

/// How a fleet device is reached: a connection spec, or the name of a saved connection profile.
public enum FleetTarget: Sendable, Hashable, CustomStringConvertible {
    /// A connection spec (UDP, Bluetooth LE, serial, the built-in simulator).
    case spec(ConnectionSpec)
    /// A profile in the connection profiles file, resolved when the fleet starts.
    case profile(String)

    /// `udp:HOST:PORT`, `TYPE:CONNSTRING`, `sim` or `profile:NAME`: the devices file's own forms.
    public var description: String {
        switch self {
        case .spec(.simulator): return "sim"
        case .spec(let spec): return "\(spec.typeName):\(spec.connectionString ?? "")"
        case .profile(let name): return "profile:\(name)"
        }
    }
}
