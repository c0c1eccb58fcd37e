import SMP

// The file-system group's commands (group 8) as typed requests.

extension FileDownloadRequest: SMPRequest {
    /// The answer.
    public typealias Response = FileDownloadResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .fs }
    /// The command within the group.
    public static var command: UInt8 { 0 }
}

extension FileUploadRequest: SMPRequest {
    /// The answer.
    public typealias Response = FileUploadResponse
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The group.
    public static var group: SMPGroup { .fs }
    /// The command within the group.
    public static var command: UInt8 { 0 }
    /// Idempotent: resent after a timeout.
    public static var retryPolicy: SMPRetryPolicy { .resend }
}

extension FileStatusRequest: SMPRequest {
    /// The answer.
    public typealias Response = FileStatusResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .fs }
    /// The command within the group.
    public static var command: UInt8 { 1 }
}

extension FileHashRequest: SMPRequest {
    /// The answer.
    public typealias Response = FileHash
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .fs }
    /// The command within the group.
    public static var command: UInt8 { 2 }
}

/// Lists the hash and checksum types the device supports (fs command 3).
public struct SupportedHashesRead: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = SupportedHashesResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The group.
    public static var group: SMPGroup { .fs }
    /// The command within the group.
    public static var command: UInt8 { 3 }
    /// Makes the request.
    public init() {}
}

/// Closes the file the device holds open (fs command 4).
public struct FileClose: SMPFieldlessRequest {
    /// The answer.
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The group.
    public static var group: SMPGroup { .fs }
    /// The command within the group.
    public static var command: UInt8 { 4 }
    /// Idempotent: resent after a timeout.
    public static var retryPolicy: SMPRetryPolicy { .resend }
    /// Makes the request.
    public init() {}
}
