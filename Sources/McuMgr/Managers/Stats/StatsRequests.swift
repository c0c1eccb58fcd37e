import SMP

// The statistics group's commands (group 2) as typed requests.

extension StatsReadRequest: SMPRequest {
    /// The answer.
    public typealias Response = StatsGroup
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .stats }
    /// The command within the group.
    public static var command: UInt8 { 0 }
}

/// Lists the statistics groups (stats command 1).
public struct StatsListRead: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = StatsListResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .stats }
    /// The command within the group.
    public static var command: UInt8 { 1 }
    /// Makes the request.
    public init() {}
}
