/// One thread's statistics from OS command 2 (task statistics).
///
/// Stack sizes are in 4-byte words. Counters that a device leaves out (Zephyr omits the ones it
/// does not support) read as `nil`.
public struct TaskStat: Codable, Sendable, Equatable {
    /// Priority (negative for cooperative threads on Zephyr builds with signed priorities).
    public var priority: Int
    /// Thread id (on Zephyr, the iteration index).
    public var taskID: Int
    /// Scheduler state.
    public var state: Int
    /// Stack used, in 4-byte words.
    public var stackUsed: Int?
    /// Stack size, in 4-byte words.
    public var stackSize: Int?
    /// Context switches.
    public var contextSwitches: Int?
    /// Run time (execution cycles on Zephyr with thread usage enabled, else 0).
    public var runtime: UInt64?
    /// Last watchdog check-in.
    public var lastCheckin: Int?
    /// Next watchdog check-in.
    public var nextCheckin: Int?

    /// Makes a statistics record.
    public init(
        priority: Int, taskID: Int, state: Int, stackUsed: Int? = nil, stackSize: Int? = nil,
        contextSwitches: Int? = nil, runtime: UInt64? = nil, lastCheckin: Int? = nil, nextCheckin: Int? = nil
    ) {
        self.priority = priority
        self.taskID = taskID
        self.state = state
        self.stackUsed = stackUsed
        self.stackSize = stackSize
        self.contextSwitches = contextSwitches
        self.runtime = runtime
        self.lastCheckin = lastCheckin
        self.nextCheckin = nextCheckin
    }

    private enum CodingKeys: String, CodingKey {
        case priority = "prio", taskID = "tid", state
        case stackUsed = "stkuse", stackSize = "stksiz", contextSwitches = "cswcnt", runtime
        case lastCheckin = "last_checkin", nextCheckin = "next_checkin"
    }
}

/// OS task statistics response: `{"tasks": {name: TaskStat}}`.
public struct TaskStatsResponse: Codable, Sendable, Equatable {
    /// Statistics by thread name.
    public var tasks: [String: TaskStat]

    /// Makes a response.
    public init(tasks: [String: TaskStat]) { self.tasks = tasks }

    /// Reads the response; `tasks` is required.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tasks = try container.decode([String: TaskStat].self, forKey: .tasks)
    }

    private enum CodingKeys: String, CodingKey { case tasks }
}
