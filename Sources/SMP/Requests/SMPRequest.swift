/// One SMP command as a type: its group, command and operation, how it may be resent, and the
/// type of its answer, so that `client.send(ImageStateRead())` returns the typed response and
/// no call site pairs a request with a response type or writes a command number.
public protocol SMPRequest: Encodable, Sendable {
    /// The decoded answer (unknown keys are ignored; a missing required key is an invalid response).
    associatedtype Response: Decodable & Sendable
    /// Read or write.
    static var operation: SMPOperation { get }
    /// The management group.
    static var group: SMPGroup { get }
    /// The command within the group.
    static var command: UInt8 { get }
    /// Whether the session may resend the request when its answer does not come.
    static var retryPolicy: SMPRetryPolicy { get }
}

extension SMPRequest {
    /// Reads are resent freely; writes are not, unless the type says it is idempotent.
    public static var retryPolicy: SMPRetryPolicy { operation == .read ? .resend : .doNotResend }
}

/// Whether a request may be sent again, by its nature.
public enum SMPRetryPolicy: Sendable, Hashable {
    /// Idempotent (reads, writes of a value, test or confirm by hash, upload chunks by offset):
    /// resent with the same sequence number after a timeout.
    case resend
    /// Not idempotent (reset, erase, shell commands): never resent blindly; a lost answer is a
    /// timeout after one try, and the caller finds out what happened before doing anything else.
    case doNotResend
}

/// Per-request overrides of the session's timing.
public struct SMPRequestOptions: Sendable, Hashable {
    /// How long to wait for each attempt's answer; `nil` takes the session's timeout.
    public var timeout: Duration?
    /// How many times an idempotent request is resent after its first try; `nil` takes the
    /// session's retries. Requests that are not idempotent are never resent.
    public var retries: Int?
    /// An overall limit across attempts and busy back-offs, measured from the first send; `nil`
    /// allows `timeout × (retries + 1)`.
    public var deadline: Duration?

    /// Makes options; every `nil` takes the session's setting.
    public init(timeout: Duration? = nil, retries: Int? = nil, deadline: Duration? = nil) {
        self.timeout = timeout
        self.retries = retries
        self.deadline = deadline
    }

    /// Resend until `deadline` has passed (for control steps that must get through a lossy link).
    public static func persistent(for deadline: Duration, timeout: Duration? = nil) -> SMPRequestOptions {
        SMPRequestOptions(timeout: timeout, retries: Int.max / 2, deadline: deadline)
    }
}
