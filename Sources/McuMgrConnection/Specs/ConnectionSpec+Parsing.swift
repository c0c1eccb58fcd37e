import BLEHost
import SMPBLE
import SMPUDP

// Reading a ConnectionSpec from what users type: `--udp`, `--ble` and Go mcumgr's
// `--conntype TYPE --connstring STRING` (also the form profiles are saved in). The grammar of
// each connection string is documented in the McuMgrConnection catalog (ConnectionStrings.md).

extension UDPEndpoint {
    /// Parses a device's address for a client: as `UDPEndpoint(_:)`, ignoring trailing spaces and refusing port 0.
    public init?(device text: String) {
        var trimmed = Substring(text)
        while trimmed.last == " " { trimmed = trimmed.dropLast() }
        guard let endpoint = UDPEndpoint(String(trimmed)), endpoint.port != 0 else { return nil }
        self = endpoint
    }
}

extension ConnectionSpec {
    /// The spec for `--udp HOST[:PORT]` (IPv6 as `[addr]:port`; the port defaults to 1337).
    public init(udpOption text: String) throws(ConnectionStringError) {
        guard let endpoint = UDPEndpoint(device: text) else { throw .invalidUDPOption(text) }
        self = .udp(endpoint)
    }

    /// The spec for `--ble ADDRESS|NAME` (`stack` nil), `--bluez` (``BLEStack/dbus``) or `--ble-socket`
    /// (``BLEStack/socket``): an address when the text is one (`AA:BB:CC:DD:EE:FF`), else a device name.
    public init(bleOption text: String, stack: BLEStack? = nil) throws(ConnectionStringError) {
        guard !text.isEmpty else { throw .emptyBLEPeer }
        self = .ble(BLEConnectionParameters(peer: Self.blePeer(text), stack: stack))
    }

    /// The spec for Go `mcumgr`'s `--conntype TYPE --connstring STRING` (and a profile's `type` and
    /// `connstring`): `udp` with `[HOST]:PORT`; `ble` with `peer_id=ADDR` or `peer_name=NAME` and
    /// options; `serial` with `dev=PATH,baud=N,mtu=N`; `sim`. Go's `oic_` type aliases are accepted.
    public init(type: String, connString: String?) throws(ConnectionStringError) {
        switch type.lowercased() {
        case "udp", "oic_udp":
            guard let text = connString else { throw .missingUDPAddress }
            guard let endpoint = UDPEndpoint(device: text) else { throw .invalidUDPAddress(text) }
            self = .udp(endpoint)
        case "ble", "oic_ble", "bll":
            self = .ble(try Self.bleParameters(connString ?? ""))
        case "serial", "oic_serial":
            self = .serial(try Self.serialParameters(connString ?? ""))
        case "sim", "simulator":
            self = .simulator
        default:
            throw .unknownType(type)
        }
    }

    /// The spec's type name as profiles and `--conntype` write it: `udp`, `ble`, `serial` or `sim`.
    public var typeName: String {
        switch self {
        case .udp: return "udp"
        case .ble: return "ble"
        case .serial: return "serial"
        case .simulator: return "sim"
        }
    }

    /// The spec's connection string in its canonical form (keys in a fixed order, defaults left
    /// out); `nil` for the simulator and for a Bluetooth LE scan with no options. Reading it back
    /// with ``init(type:connString:)`` gives the same spec.
    public var connectionString: String? {
        switch self {
        case .udp(let endpoint):
            return endpoint.description
        case .ble(let p):
            var pairs: [String] = []
            switch p.peer {
            case .address(let address): pairs.append("peer_id=\(address)")
            case .name(let name): pairs.append("peer_name=\(name)")
            case .scan: break
            }
            if let type = p.addressType { pairs.append("addr_type=\(type.rawValue)") }
            if let adapter = p.adapter { pairs.append("ctlr_name=\(adapter)") }
            if let security = p.security { pairs.append("security=\(security.rawValue)") }
            if let controller = p.controller { pairs.append("hci=\(controller)") }
            if let stack = p.stack { pairs.append("stack=\(stack.rawValue)") }
            return pairs.isEmpty ? nil : pairs.joined(separator: ",")
        case .serial(let p):
            var pairs = ["dev=\(p.device)"]
            if let baud = p.baudRate { pairs.append("baud=\(baud)") }
            if let mtu = p.maximumPacketSize { pairs.append("mtu=\(mtu)") }
            if let length = p.lineLength { pairs.append("line_length=\(length)") }
            if p.raw { pairs.append("raw=true") }
            if p.hardwareFlowControl { pairs.append("rtscts=true") }
            return pairs.joined(separator: ",")
        case .simulator:
            return nil
        }
    }
}

// MARK: - Bluetooth LE and serial connection strings

extension ConnectionSpec {
    static let bleKeys = ["peer_id", "peer_name", "addr_type", "ctlr_name", "security", "hci", "stack"]
    static let serialKeys = ["dev", "baud", "mtu", "line_length", "raw", "rtscts"]

    /// Whether `text` is a Bluetooth device address (`AA:BB:CC:DD:EE:FF`, any case) rather than a name.
    public static func isBLEAddress(_ text: String) -> Bool { bleAddress(text) != nil }

    /// An address when `text` is one, else a name.
    static func blePeer(_ text: String) -> BLEPeer {
        bleAddress(text).map { .address($0) } ?? .name(text)
    }

    /// `text` as an upper-case `AA:BB:CC:DD:EE:FF` address, or nil.
    static func bleAddress(_ text: String) -> String? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return text.uppercased()
    }

    static func bleParameters(_ text: String) throws(ConnectionStringError) -> BLEConnectionParameters {
        let settings = try KeyValueList(text, kind: .ble, keys: bleKeys, aliases: ["peer_addr": "peer_id", "peer_addr_type": "addr_type", "adapter": "ctlr_name"])
        var p = BLEConnectionParameters(peer: .scan)
        switch (settings.bare, settings["peer_id"], settings["peer_name"]) {
        case (.some(let bare), nil, nil):
            p.peer = blePeer(bare)
        case (nil, .some(let id), nil):
            guard let address = bleAddress(id) else {
                throw .invalidValue(key: "peer_id", value: id, expected: "a device address such as AA:BB:CC:DD:EE:FF")
            }
            p.peer = .address(address)
        case (nil, nil, .some(let name)):
            guard !name.isEmpty else { throw .invalidValue(key: "peer_name", value: name, expected: "the name the device advertises") }
            p.peer = .name(name)
        case (nil, nil, nil):
            break
        default:
            throw .conflictingPeers
        }
        p.addressType = try settings.choice("addr_type", BLEAddressType.self)
        p.adapter = settings["ctlr_name"]
        p.security = try settings.choice("security", BLESecurity.self)
        if let hci = settings["hci"] { p.controller = try hciController(option: hci) }
        p.stack = try settings.choice("stack", BLEStack.self)
        if p.stack != nil, p.controller != nil {
            throw .invalidValue(key: "stack", value: p.stack!.rawValue, expected: "dbus or socket, and not together with hci= (our own LE host is neither)")
        }
        return p
    }

    /// The controller of `--hci` or of a connection string's `hci=`: `tcp:HOST:PORT`,
    /// `serial:PATH[@BAUD]` or `user:N` (also `user:hciN`).
    public static func hciController(option text: String) throws(ConnectionStringError) -> HCIController {
        let invalid = ConnectionStringError.invalidValue(key: "hci", value: text, expected: "tcp:HOST:PORT, serial:PATH[@BAUD] or user:N")
        if text.hasPrefix("tcp:") {
            let address = String(text.dropFirst(4))
            let hasPort = address.hasPrefix("[") ? address.contains("]:") : address.filter { $0 == ":" }.count == 1
            guard hasPort, let endpoint = UDPEndpoint(device: address) else { throw invalid }
            return .tcp(host: endpoint.host, port: endpoint.port)
        }
        if text.hasPrefix("serial:") {
            let rest = text.dropFirst(7)
            let parts = rest.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            guard let path = parts.first, !path.isEmpty else { throw invalid }
            guard parts.count == 2 else { return .serial(path: String(path), baudRate: nil) }
            guard let baud = Int(parts[1]) else { throw invalid }
            try SerialConnectionParameters.validate(baudRate: baud, key: "hci baud rate", rates: HCITransports.baudRates)
            return .serial(path: String(path), baudRate: baud)
        }
        if text.hasPrefix("user:") {
            var index = text.dropFirst(5)
            if index.hasPrefix("hci") { index = index.dropFirst(3) }
            guard let number = Int(index), (0...255).contains(number) else { throw invalid }
            return .userChannel(index: number)
        }
        throw invalid
    }

    static func serialParameters(_ text: String) throws(ConnectionStringError) -> SerialConnectionParameters {
        let settings = try KeyValueList(text, kind: .serial, keys: serialKeys, aliases: [:])
        guard let device = settings["dev"] ?? settings.bare, !device.isEmpty else { throw .missingSerialDevice }
        var p = SerialConnectionParameters(device: device)
        p.baudRate = try settings.number("baud", in: SerialConnectionParameters.baudRateRange)
        p.maximumPacketSize = try settings.number("mtu", in: SerialConnectionParameters.packetSizes)
        p.lineLength = try settings.number("line_length", in: SerialConnectionParameters.lineLengths)
        p.raw = try settings.flag("raw")
        p.hardwareFlowControl = try settings.flag("rtscts")
        try p.validate()
        return p
    }
}

/// A Go-style connection string, `key=value` pairs separated by commas (spaces around them
/// allowed); the first piece may be a bare value (`/dev/ttyUSB0`, an address).
struct KeyValueList {
    /// The values by canonical key.
    private(set) var values: [String: String] = [:]
    /// The leading value without a key, if any.
    private(set) var bare: String?

    init(_ text: String, kind: TransportKind, keys: [String], aliases: [String: String]) throws(ConnectionStringError) {
        let pieces = text.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        for (position, piece) in pieces.enumerated() {
            guard let equals = piece.firstIndex(of: "=") else {
                guard position == 0 else { throw .unknownKey(kind, key: piece, known: keys) }
                bare = piece
                continue
            }
            let written = piece[..<equals].lowercased()
            let key = aliases[written] ?? written
            guard keys.contains(key) else { throw .unknownKey(kind, key: written, known: keys) }
            guard values[key] == nil else { throw .duplicateKey(key) }
            values[key] = String(piece[piece.index(after: equals)...])
        }
    }

    subscript(key: String) -> String? { values[key] }

    /// The value of `key` as one of `T`'s raw values.
    func choice<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws(ConnectionStringError) -> T? where T.RawValue == String {
        guard let text = values[key] else { return nil }
        guard let value = T(rawValue: text.lowercased()) else {
            throw .invalidValue(key: key, value: text, expected: T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return value
    }

    /// The value of `key` as a whole number in `range`.
    func number(_ key: String, in range: ClosedRange<Int>) throws(ConnectionStringError) -> Int? {
        guard let text = values[key] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .invalidValue(key: key, value: text, expected: "a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The value of `key` as a flag: `true`/`false`, `1`/`0`, `yes`/`no`; absent is false.
    func flag(_ key: String) throws(ConnectionStringError) -> Bool {
        guard let text = values[key] else { return false }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw .invalidValue(key: key, value: text, expected: "true or false")
        }
    }
}

extension StringProtocol {
    /// The text without spaces at either end.
    func trimmingSpaces() -> String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
