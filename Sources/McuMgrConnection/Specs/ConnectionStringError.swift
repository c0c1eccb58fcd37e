/// Why a connection option, connection string or profile could not be read as a ``ConnectionSpec``.
///
/// Each case's ``description`` says what was expected; `mcumgr` reports every case as a usage error (exit status 2).
public enum ConnectionStringError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `--udp` was given something other than `HOST[:PORT]` or `[IPv6]:PORT` (port 1–65535).
    case invalidUDPOption(String)
    /// `--ble` was given an empty value.
    case emptyBLEPeer
    /// A UDP connection string is missing.
    case missingUDPAddress
    /// A UDP connection string is not an address.
    case invalidUDPAddress(String)
    /// The connection type is none of the known ones.
    case unknownType(String)
    /// A `key=value` connection string holds a key the transport does not know.
    case unknownKey(TransportKind, key: String, known: [String])
    /// A key appears twice in a connection string.
    case duplicateKey(String)
    /// A value is not what its key takes.
    case invalidValue(key: String, value: String, expected: String)
    /// A Bluetooth LE connection string names both an address and a name.
    case conflictingPeers
    /// A serial connection string names no device.
    case missingSerialDevice

    /// What is wrong and what to write instead.
    public var description: String {
        switch self {
        case .invalidUDPOption(let text):
            return "--udp expects HOST[:PORT] or [IPv6]:PORT, not '\(text)'"
        case .emptyBLEPeer:
            return "--ble expects a device address (AA:BB:CC:DD:EE:FF) or name"
        case .missingUDPAddress:
            return "--conntype udp needs --connstring HOST:PORT"
        case .invalidUDPAddress(let text):
            return "'\(text)' is not a UDP address; use HOST:PORT, [HOST]:PORT or [IPv6]:PORT"
        case .unknownType(let type):
            return "unknown connection type '\(type)'; use udp, serial, ble or sim"
        case .unknownKey(let kind, let key, let known):
            let list = known.dropLast().joined(separator: ", ") + (known.count > 1 ? " or " : "") + (known.last ?? "")
            return "unknown key '\(key)' in the \(kind) connection string; use \(list)"
        case .duplicateKey(let key):
            return "'\(key)' is given twice in the connection string"
        case .invalidValue(let key, let value, let expected):
            return "'\(value)' is not a valid \(key): expected \(expected)"
        case .conflictingPeers:
            return "name the Bluetooth LE device by peer_id or by peer_name, not both"
        case .missingSerialDevice:
            return "the serial connection string names no device; use dev=PATH, e.g. dev=/dev/ttyACM0,baud=115200"
        }
    }
}
