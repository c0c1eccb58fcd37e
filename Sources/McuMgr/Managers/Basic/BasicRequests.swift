import SMP

// The Zephyr basic group's command (group 63) as typed requests.

/// Erases the application's settings storage partition (basic command 0).
public struct StorageErase: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The group.
    public static var group: SMPGroup { .zephyrBasic }
    /// The command within the group.
    public static var command: UInt8 { 0 }
    /// Not idempotent: never resent blindly.
    public static var retryPolicy: SMPRetryPolicy { .doNotResend }
    /// Makes the request.
    public init() {}
}
