/// A saved connection: a transport type and its connection string, as Go `mcumgr`'s `conn add`
/// keeps them (`type=udp connstring=[192.0.2.1]:1337`).
///
/// The connection string's grammar depends on the type (see the ConnectionStrings article);
/// ``spec()`` reads it. Keys of the profile's JSON object that this version does not know are
/// kept in ``unknownFields`` and written back unchanged.
public struct ConnectionProfile: Sendable, Hashable, Codable {
    /// `udp`, `ble`, `serial` or `sim` (Go's `oic_` aliases are read too).
    public var type: String
    /// The address and options, e.g. `192.0.2.1:1337` or `dev=/dev/ttyACM0,baud=115200`; none for
    /// `sim` and a Bluetooth LE scan.
    public var connstring: String?
    /// Seconds to wait for each response (`mcumgr --timeout`), when the profile sets it: more than
    /// 0 and at most ``maximumTimeout``.
    public var timeout: Double?
    /// Times a request is resent after a timeout (`mcumgr --retries`), 0 to ``maximumRetries``, when set.
    public var retries: Int?
    /// The largest SMP packet to send, in bytes (`mcumgr --mtu`), 64 to 65507, when set.
    public var mtu: Int?
    /// Keys this version does not know, kept as they were read.
    public var unknownFields: [String: JSONValue]

    /// The longest `timeout` a profile may set: an hour.
    public static let maximumTimeout = 3_600.0
    /// The most `retries` a profile may set.
    public static let maximumRetries = 100
    /// The `mtu` values a profile may set.
    public static let mtuRange = 64...65_507

    /// Makes a profile.
    public init(
        type: String, connstring: String?, timeout: Double? = nil, retries: Int? = nil, mtu: Int? = nil,
        unknownFields: [String: JSONValue] = [:]
    ) {
        self.type = type
        self.connstring = connstring
        self.timeout = timeout
        self.retries = retries
        self.mtu = mtu
        self.unknownFields = unknownFields
    }

    /// The canonical profile of `spec`.
    public init(_ spec: ConnectionSpec) {
        self.init(type: spec.typeName, connstring: spec.connectionString)
    }

    /// The connection the profile names.
    public func spec() throws(ConnectionStringError) -> ConnectionSpec {
        try ConnectionSpec(type: type, connString: connstring)
    }

    /// `type=udp connstring=192.0.2.1:1337 timeout=1 retries=0` (`type=sim` without a connection
    /// string; the session settings only when set).
    public var summary: String {
        var parts = ["type=\(type)"]
        if let connstring { parts.append("connstring=\(connstring)") }
        parts += settingsSummary
        return parts.joined(separator: " ")
    }

    /// The session settings the profile sets: `timeout=1`, `retries=0`, `mtu=512`.
    public var settingsSummary: [String] {
        var parts: [String] = []
        if let timeout { parts.append("timeout=\(timeout == timeout.rounded() && timeout < 1e9 ? String(Int(timeout)) : String(timeout))") }
        if let retries { parts.append("retries=\(retries)") }
        if let mtu { parts.append("mtu=\(mtu)") }
        return parts
    }

    /// Reads `type`, `connstring`, `timeout`, `retries`, `mtu` (each checked against its range)
    /// and keeps every other key.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        type = try c.decode(String.self, forKey: AnyCodingKey("type"))
        connstring = try c.decodeIfPresent(String.self, forKey: AnyCodingKey("connstring"))
        timeout = try c.decodeIfPresent(Double.self, forKey: AnyCodingKey("timeout"))
        retries = try c.decodeIfPresent(Int.self, forKey: AnyCodingKey("retries"))
        mtu = try c.decodeIfPresent(Int.self, forKey: AnyCodingKey("mtu"))
        if let timeout, !(timeout > 0 && timeout <= Self.maximumTimeout) {
            throw DecodingError.dataCorruptedError(
                forKey: AnyCodingKey("timeout"), in: c, debugDescription: "\(timeout) is not more than 0 and at most \(Int(Self.maximumTimeout)) seconds")
        }
        if let retries, !(0...Self.maximumRetries).contains(retries) {
            throw DecodingError.dataCorruptedError(
                forKey: AnyCodingKey("retries"), in: c, debugDescription: "\(retries) is not 0 to \(Self.maximumRetries)")
        }
        if let mtu, !Self.mtuRange.contains(mtu) {
            throw DecodingError.dataCorruptedError(
                forKey: AnyCodingKey("mtu"), in: c, debugDescription: "\(mtu) is not \(Self.mtuRange.lowerBound) to \(Self.mtuRange.upperBound) bytes")
        }
        unknownFields = try c.decodeUnknownFields(except: ["type", "connstring", "timeout", "retries", "mtu"])
    }

    /// Writes `type`, `connstring`, `timeout`, `retries` and `mtu` (each when set) and the kept keys.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        try c.encodeUnknownFields(unknownFields)
        try c.encode(type, forKey: AnyCodingKey("type"))
        try c.encodeIfPresent(connstring, forKey: AnyCodingKey("connstring"))
        try c.encodeIfPresent(timeout, forKey: AnyCodingKey("timeout"))
        try c.encodeIfPresent(retries, forKey: AnyCodingKey("retries"))
        try c.encodeIfPresent(mtu, forKey: AnyCodingKey("mtu"))
    }
}

/// The contents of the profiles file (`connections.json`): a format version and the profiles by name.
///
/// Version 1 is `{"version": 1, "connections": {NAME: {"type": …, "connstring": …}}}`; a file
/// without `version` (written before it existed) reads as version 1. Unknown keys, at the top
/// and in each profile, are kept.
public struct ConnectionProfiles: Sendable, Hashable, Codable {
    /// The format version this library writes.
    public static let currentVersion = 1

    /// The file's format version.
    public var version: Int
    /// The profiles by name.
    public var connections: [String: ConnectionProfile]
    /// Top-level keys this version does not know, kept as they were read.
    public var unknownFields: [String: JSONValue]

    /// Makes a file's contents.
    public init(connections: [String: ConnectionProfile] = [:], version: Int = ConnectionProfiles.currentVersion, unknownFields: [String: JSONValue] = [:]) {
        self.version = version
        self.connections = connections
        self.unknownFields = unknownFields
    }

    /// Reads `version` (1 when absent), `connections` (none when absent) and keeps every other key.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        version = try c.decodeIfPresent(Int.self, forKey: AnyCodingKey("version")) ?? 1
        connections = try c.decodeIfPresent([String: ConnectionProfile].self, forKey: AnyCodingKey("connections")) ?? [:]
        unknownFields = try c.decodeUnknownFields(except: ["version", "connections"])
    }

    /// Writes `version`, `connections` and the kept keys.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        try c.encodeUnknownFields(unknownFields)
        try c.encode(version, forKey: AnyCodingKey("version"))
        try c.encode(connections, forKey: AnyCodingKey("connections"))
    }
}

extension KeyedDecodingContainer where Key == AnyCodingKey {
    /// Every key but `known`, with its value.
    func decodeUnknownFields(except known: Set<String>) throws -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for key in allKeys where !known.contains(key.stringValue) {
            fields[key.stringValue] = try decode(JSONValue.self, forKey: key)
        }
        return fields
    }
}

extension KeyedEncodingContainer where Key == AnyCodingKey {
    /// Writes each kept field under its own key.
    mutating func encodeUnknownFields(_ fields: [String: JSONValue]) throws {
        for (key, value) in fields {
            try encode(value, forKey: AnyCodingKey(key))
        }
    }
}
