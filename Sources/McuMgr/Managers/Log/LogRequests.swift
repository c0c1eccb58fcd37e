import SMP

// The log group's commands (group 4, Mynewt) as typed requests.

extension LogShowRequest: SMPRequest {
    /// The answer.
    public typealias Response = LogShowResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .log }
    /// The command within the group.
    public static var command: UInt8 { 0 }
}

/// Clears the logs (log command 1).
public struct LogClear: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The group.
    public static var group: SMPGroup { .log }
    /// The command within the group.
    public static var command: UInt8 { 1 }
    /// Not idempotent: never resent blindly.
    public static var retryPolicy: SMPRetryPolicy { .doNotResend }
    /// Makes the request.
    public init() {}
}

/// Lists the log modules (log command 3).
public struct LogModuleListRead: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = LogModuleListResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .log }
    /// The command within the group.
    public static var command: UInt8 { 3 }
    /// Makes the request.
    public init() {}
}

/// Lists the log levels (log command 4).
public struct LogLevelListRead: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = LogLevelListResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .log }
    /// The command within the group.
    public static var command: UInt8 { 4 }
    /// Makes the request.
    public init() {}
}

/// Lists the logs (log command 5).
public struct LogListRead: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = LogListResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .log }
    /// The command within the group.
    public static var command: UInt8 { 5 }
    /// Makes the request.
    public init() {}
}
