/// Enumeration count response (group 10, command 0): `{"count": uint}`.
public struct GroupCountResponse: Codable, Sendable, Equatable {
    /// How many management groups the device has.
    public var count: Int

    /// Makes a response.
    public init(count: Int) { self.count = count }
}

/// Enumeration list response (group 10, command 1): `{"groups": [uint, ...]}`, in registration order.
public struct GroupListResponse: Codable, Sendable, Equatable {
    /// The group ids.
    public var groups: [UInt16]

    /// Makes a response.
    public init(groups: [UInt16]) { self.groups = groups }
}

/// Enumeration single request (group 10, command 2): `{"index": uint}`.
public struct GroupAtIndexRequest: Codable, Sendable, Equatable {
    /// The position in the device's list (default 0).
    public var index: Int?

    /// Makes a request.
    public init(index: Int? = nil) { self.index = index }
}

/// One group from the enumeration single command: `{"group": uint, "end": true (on the last one)}`.
public struct GroupAtIndex: Codable, Sendable, Equatable {
    /// The group id.
    public var group: UInt16
    /// Whether this is the device's last group.
    public var isLast: Bool

    /// Makes a result.
    public init(group: UInt16, isLast: Bool) {
        self.group = group
        self.isLast = isLast
    }

    /// Reads `group` and the optional `end` flag (absent: not the last).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        group = try c.decode(UInt16.self, forKey: .group)
        isLast = try c.decodeIfPresent(Bool.self, forKey: .isLast) ?? false
    }

    private enum CodingKeys: String, CodingKey { case group, isLast = "end" }
}

/// Enumeration details request (group 10, command 3): `{}` for every group, or `{"groups": [uint, ...]}`.
public struct GroupDetailsRequest: Codable, Sendable, Equatable {
    /// The groups wanted; `nil` asks for all.
    public var groups: [UInt16]?

    /// Makes a request.
    public init(groups: [UInt16]? = nil) { self.groups = groups }
}

/// One group's details: `{"group": uint, "name": text (optional), "handlers": uint (optional)}`.
public struct GroupDetails: Codable, Sendable, Equatable {
    /// The group id.
    public var group: UInt16
    /// The group's name, when the device has one.
    public var name: String?
    /// How many command handlers the group has, when the device says.
    public var handlers: Int?

    /// Makes a record.
    public init(group: UInt16, name: String? = nil, handlers: Int? = nil) {
        self.group = group
        self.name = name
        self.handlers = handlers
    }
}

/// Enumeration details response: `{"groups": [GroupDetails, ...]}`.
public struct GroupDetailsResponse: Codable, Sendable, Equatable {
    /// One record per group.
    public var groups: [GroupDetails]

    /// Makes a response.
    public init(groups: [GroupDetails]) { self.groups = groups }
}
