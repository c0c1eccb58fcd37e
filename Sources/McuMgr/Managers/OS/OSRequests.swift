import SMP

// The OS (default) group's commands as typed requests (group 0).

extension EchoRequest: SMPRequest {
    /// The echoed text.
    public typealias Response = EchoResponse
    /// A write, as the mcumgr CLI sends it.
    public static var operation: SMPOperation { .write }
    /// The OS group.
    public static var group: SMPGroup { .os }
    /// Command 0.
    public static var command: UInt8 { 0 }
    /// Echo changes nothing: resend freely.
    public static var retryPolicy: SMPRetryPolicy { .resend }
}

extension ConsoleEchoRequest: SMPRequest {
    /// Nothing but success.
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The OS group.
    public static var group: SMPGroup { .os }
    /// Command 1.
    public static var command: UInt8 { 1 }
    /// Setting a flag twice is harmless.
    public static var retryPolicy: SMPRetryPolicy { .resend }
}

/// Reads every thread's statistics (OS command 2).
public struct TaskStatsRead: SMPFieldlessRequest {
    /// Statistics by thread name.
    public typealias Response = TaskStatsResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The OS group.
    public static var group: SMPGroup { .os }
    /// Command 2.
    public static var command: UInt8 { 2 }
    /// Makes the request.
    public init() {}
}

/// Reads every memory pool's statistics (OS command 3).
public struct MemoryPoolStatsRead: SMPFieldlessRequest {
    /// Statistics by pool name.
    public typealias Response = MemoryPoolStatsResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The OS group.
    public static var group: SMPGroup { .os }
    /// Command 3.
    public static var command: UInt8 { 3 }
    /// Makes the request.
    public init() {}
}

/// Reads the device's clock (OS command 4).
public struct DateTimeRead: SMPFieldlessRequest {
    /// The clock as text.
    public typealias Response = DateTimeMessage
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The OS group.
    public static var group: SMPGroup { .os }
    /// Command 4.
    public static var command: UInt8 { 4 }
    /// Makes the request.
    public init() {}
}

extension DateTimeMessage: SMPRequest {
    /// Nothing but success.
    public typealias Response = SMPEmptyMessage
    /// Setting the clock is a write.
    public static var operation: SMPOperation { .write }
    /// The OS group.
    public static var group: SMPGroup { .os }
    /// Command 4.
    public static var command: UInt8 { 4 }
    /// Setting the same time again is harmless.
    public static var retryPolicy: SMPRetryPolicy { .resend }
}

extension ResetRequest: SMPRequest {
    /// Nothing but success.
    public typealias Response = SMPEmptyMessage
    /// A write.
    public static var operation: SMPOperation { .write }
    /// The OS group.
    public static var group: SMPGroup { .os }
    /// Command 5.
    public static var command: UInt8 { 5 }
    /// Never resent: a second reset after the device rebooted into a test image reverts it.
    public static var retryPolicy: SMPRetryPolicy { .doNotResend }
}

extension ApplicationInfoRequest: SMPRequest {
    /// The info text.
    public typealias Response = ApplicationInfoResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The OS group.
    public static var group: SMPGroup { .os }
    /// Command 7.
    public static var command: UInt8 { 7 }
}

extension BootloaderInfoRequest: SMPRequest {
    /// The bootloader's name or the queried item.
    public typealias Response = BootloaderInfoResponse
    /// A read.
    public static var operation: SMPOperation { .read }
    /// The OS group.
    public static var group: SMPGroup { .os }
    /// Command 8.
    public static var command: UInt8 { 8 }
}
