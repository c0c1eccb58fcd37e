/// The device's own log (Mynewt log group shape): numbered entries with a time stamp, level and module.
struct EventLog: Sendable {
    /// One log entry.
    struct Entry: Sendable, Hashable {
        let index: UInt64
        /// Microseconds: since 1970 when the clock was set, else since boot.
        let timestamp: UInt64
        let level: Level
        let module: Module
        let message: String
    }

    /// Log levels, in the order of the level list.
    enum Level: Int, Sendable, CaseIterable {
        case debug = 0, info, warn, error, critical

        var name: String { ["DEBUG", "INFO", "WARN", "ERROR", "CRITICAL"][rawValue] }
    }

    /// Log modules and their ids.
    enum Module: Int, Sendable, CaseIterable {
        case `default` = 0, os = 1, image = 2, settings = 3, fs = 4, smp = 5, boot = 6

        var name: String { ["DEFAULT", "OS", "IMG", "SETTINGS", "FS", "SMP", "BOOT"][rawValue] }
    }

    /// The log's name in the logs list.
    static let name = "sim"
    /// Entries kept; older ones are dropped.
    static let capacity = 256

    private(set) var entries: [Entry] = []
    /// The index the next entry will get.
    private(set) var nextIndex: UInt64 = 0

    mutating func add(_ level: Level, _ module: Module, _ message: String, timestamp: UInt64) {
        entries.append(Entry(index: nextIndex, timestamp: timestamp, level: level, module: module, message: message))
        nextIndex += 1
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
    }

    mutating func clear() {
        entries = []
    }
}
