import CBOR

/// Everything a request through `SMPClient` can fail with.
public enum SMPError: Error, Sendable {
    /// The device answered with an error.
    case device(SMPDeviceError)
    /// No response after the first try and every retry.
    case timeout(group: SMPGroup, command: UInt8, attempts: Int)
    /// The transport failed or the link went down.
    case transport(SMPTransportError)
    /// The request does not fit the transport's or the device's packet size.
    case requestTooLarge(size: Int, limit: Int)
    /// The response could not be read (framing, CBOR, or fields of the wrong type).
    case invalidResponse(String)
    /// The request could not be encoded.
    case invalidRequest(String)
    /// The client was closed.
    case closed
    /// The calling task was cancelled before the answer came.
    case cancelled
}

extension SMPError: CustomStringConvertible {
    /// A one-line message a user can act on.
    public var description: String {
        switch self {
        case .device(let e):
            return "device error: \(e)"
        case .timeout(let group, let command, let attempts):
            let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
            return "no response from the device to \(group) command \(command) after \(tries); check the connection, or raise --timeout"
        case .transport(let e):
            return "transport error: \(e)"
        case .requestTooLarge(let size, let limit):
            return "request of \(size) bytes exceeds the \(limit)-byte packet limit"
        case .invalidResponse(let why):
            return "invalid response from the device: \(why)"
        case .invalidRequest(let why):
            return "invalid request: \(why)"
        case .closed:
            return "the SMP client was closed"
        case .cancelled:
            return "cancelled"
        }
    }
}
