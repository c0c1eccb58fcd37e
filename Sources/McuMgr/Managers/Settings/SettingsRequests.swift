import SMP

// The settings group's commands (group 3) as typed requests.

extension SettingsReadRequest: SMPRequest {
    /// The answer.
    public typealias Response = SettingValue
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .settings }
    /// The command within the group.
    public static var command: UInt8 { 0 }
}

extension SettingsWriteRequest: SMPRequest {
    /// The answer.
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The group.
    public static var group: SMPGroup { .settings }
    /// The command within the group.
    public static var command: UInt8 { 0 }
    /// Idempotent: resent after a timeout.
    public static var retryPolicy: SMPRetryPolicy { .resend }
}

extension SettingsDeleteRequest: SMPRequest {
    /// The answer.
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The group.
    public static var group: SMPGroup { .settings }
    /// The command within the group.
    public static var command: UInt8 { 1 }
    /// Idempotent: resent after a timeout.
    public static var retryPolicy: SMPRetryPolicy { .resend }
}

/// Applies the settings written so far (settings command 2).
public struct SettingsCommit: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The group.
    public static var group: SMPGroup { .settings }
    /// The command within the group.
    public static var command: UInt8 { 2 }
    /// Idempotent: resent after a timeout.
    public static var retryPolicy: SMPRetryPolicy { .resend }
    /// Makes the request.
    public init() {}
}

/// Loads the settings from storage (settings command 3, read).
public struct SettingsLoad: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = SMPEmptyMessage
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .settings }
    /// The command within the group.
    public static var command: UInt8 { 3 }
    /// Makes the request.
    public init() {}
}

/// Saves the settings to storage (settings command 3, write).
public struct SettingsSave: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The group.
    public static var group: SMPGroup { .settings }
    /// The command within the group.
    public static var command: UInt8 { 3 }
    /// Idempotent: resent after a timeout.
    public static var retryPolicy: SMPRetryPolicy { .resend }
    /// Makes the request.
    public init() {}
}
