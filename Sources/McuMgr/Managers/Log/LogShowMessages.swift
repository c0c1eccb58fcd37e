/// Log show request (group 4, command 0): `{"log_name"?, "index"?, "ts"?}`.
public struct LogShowRequest: Codable, Sendable, Equatable {
    /// The log to read; `nil` reads every log.
    public var logName: String?
    /// The oldest entry index wanted; `nil` starts at the beginning.
    public var index: Int?
    /// Only entries from this date-time text on (honoured only together with `index`).
    public var timestamp: String?

    /// Makes a request.
    public init(logName: String? = nil, index: Int? = nil, timestamp: String? = nil) {
        self.logName = logName
        self.index = index
        self.timestamp = timestamp
    }

    private enum CodingKeys: String, CodingKey { case logName = "log_name", index, timestamp = "ts" }
}

/// One log's part of a show response: `{"name", "type", "entries": [...]}`.
public struct LogShowLog: Codable, Sendable, Equatable {
    /// The log's name.
    public var name: String
    /// The log's type (Mynewt: 0 console, 1 storage, 2 stream).
    public var type: Int
    /// The entries returned, oldest first.
    public var entries: [LogEntry]

    /// Makes a log part.
    public init(name: String, type: Int, entries: [LogEntry]) {
        self.name = name
        self.type = type
        self.entries = entries
    }

    /// Reads a log part; absent `type` reads as 0 and absent `entries` as none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        type = try c.decodeIfPresent(Int.self, forKey: .type) ?? 0
        entries = try c.decodeIfPresent([LogEntry].self, forKey: .entries) ?? []
    }

    private enum CodingKeys: String, CodingKey { case name, type, entries }
}

/// Log show response: `{"next_index": uint, "logs": [...]}`.
public struct LogShowResponse: Codable, Sendable, Equatable {
    /// The index to ask for next to continue where this response stopped.
    public var nextIndex: Int?
    /// Each log's entries.
    public var logs: [LogShowLog]

    /// Makes a response.
    public init(nextIndex: Int?, logs: [LogShowLog]) {
        self.nextIndex = nextIndex
        self.logs = logs
    }

    /// Reads the response; absent `logs` reads as none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        nextIndex = try c.decodeIfPresent(Int.self, forKey: .nextIndex)
        logs = try c.decodeIfPresent([LogShowLog].self, forKey: .logs) ?? []
    }

    private enum CodingKeys: String, CodingKey { case nextIndex = "next_index", logs }
}
