/// Why a GATT operation failed.
public enum GATTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server answered with an ATT Error Response.
    case att(ATTErrorResponse)
    /// No response within the transaction timeout; the bearer was closed, as the spec requires.
    case timeout(request: ATTOpcode, after: Duration)
    /// The bearer is closed (the link went down, the client was closed, or a transaction timed out).
    case closed(reason: String)
    /// The bearer could not send.
    case bearer(ATTBearerError)
    /// The server's answer could not be decoded or contradicts the request.
    case invalidResponse(String)
    /// A value is longer than one PDU carries at the current MTU.
    case valueTooLong(size: Int, limit: Int)
    /// What was looked for is not on the server.
    case notFound(String)

    /// A one-line message.
    public var description: String {
        switch self {
        case .att(let error): return error.description
        case .timeout(let request, let after): return "no answer to \(request) within \(after); the ATT bearer was closed"
        case .closed(let reason): return "the ATT bearer is closed: \(reason)"
        case .bearer(let error): return error.description
        case .invalidResponse(let why): return "invalid ATT response: \(why)"
        case .valueTooLong(let size, let limit): return "value of \(size) bytes exceeds the \(limit) bytes one ATT PDU carries"
        case .notFound(let what): return "not found on the GATT server: \(what)"
        }
    }
}

/// An ATT Error Response: which request failed, on which handle, and why.
public struct ATTErrorResponse: Error, Hashable, Sendable, CustomStringConvertible {
    /// The request that failed.
    public var request: ATTOpcode
    /// The handle the error concerns (0 when none).
    public var handle: UInt16
    /// The spec's error code.
    public var code: ATTErrorCode

    /// Makes an error response value.
    public init(request: ATTOpcode, handle: UInt16, code: ATTErrorCode) {
        self.request = request
        self.handle = handle
        self.code = code
    }

    /// E.g. `ATT_WRITE_REQ on handle 0x0013 failed: Insufficient Authentication (0x05)`.
    public var description: String { "\(request) on handle \(hex(handle)) failed: \(code)" }
}
