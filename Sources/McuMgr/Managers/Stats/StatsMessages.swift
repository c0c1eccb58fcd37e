/// Statistics read request (group 2, command 0): `{"name": group}`.
public struct StatsReadRequest: Codable, Sendable, Equatable {
    /// The statistics group's name.
    public var name: String

    /// Makes a request.
    public init(name: String) { self.name = name }
}

/// One statistics group and its counters: `{"name": text, "fields": {counter: uint}}`.
public struct StatsGroup: Codable, Sendable, Equatable {
    /// The group's name.
    public var name: String
    /// Counter values by counter name.
    public var fields: [String: UInt64]

    /// Makes a group.
    public init(name: String, fields: [String: UInt64]) {
        self.name = name
        self.fields = fields
    }

    /// Reads a group; an absent name reads as empty (the manager fills in the requested one), and
    /// `fields` is required (a group without counters sends an empty map).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name) ?? ""
        fields = try c.decode([String: UInt64].self, forKey: .fields)
    }

    private enum CodingKeys: String, CodingKey { case name, fields }
}

/// Statistics list response (group 2, command 1): `{"stat_list": [name, ...]}`.
public struct StatsListResponse: Codable, Sendable, Equatable {
    /// The names of the device's statistics groups.
    public var names: [String]

    /// Makes a response.
    public init(names: [String]) { self.names = names }

    /// Reads the response; `stat_list` is required (a device without groups sends an empty list).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        names = try c.decode([String].self, forKey: .names)
    }

    private enum CodingKeys: String, CodingKey { case names = "stat_list" }
}
