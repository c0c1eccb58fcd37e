import SMP

// The enumeration group's commands (group 10) as typed requests.

/// Counts the groups the device supports (enum command 0).
public struct GroupCountRead: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = GroupCountResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .enumeration }
    /// The command within the group.
    public static var command: UInt8 { 0 }
    /// Makes the request.
    public init() {}
}

/// Lists the groups the device supports (enum command 1).
public struct GroupListRead: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = GroupListResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .enumeration }
    /// The command within the group.
    public static var command: UInt8 { 1 }
    /// Makes the request.
    public init() {}
}

extension GroupAtIndexRequest: SMPRequest {
    /// The answer.
    public typealias Response = GroupAtIndex
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .enumeration }
    /// The command within the group.
    public static var command: UInt8 { 2 }
}

extension GroupDetailsRequest: SMPRequest {
    /// The answer.
    public typealias Response = GroupDetailsResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .enumeration }
    /// The command within the group.
    public static var command: UInt8 { 3 }
}
