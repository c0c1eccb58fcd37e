import SMP

// The shell group's command (group 9) as typed requests.

extension ShellExecuteRequest: SMPRequest {
    /// The answer.
    public typealias Response = ShellResult
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The group.
    public static var group: SMPGroup { .shell }
    /// The command within the group.
    public static var command: UInt8 { 0 }
    /// Not idempotent: never resent blindly.
    public static var retryPolicy: SMPRetryPolicy { .doNotResend }
}
