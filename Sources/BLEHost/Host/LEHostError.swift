/// Why the LE host could not do what was asked, with a message a user can act on.
public enum LEHostError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The link to the controller failed or could not be opened.
    case transport(HCITransportError)
    /// The controller refused a command.
    case commandFailed(command: String, status: HCIStatus)
    /// The controller did not answer a command in time.
    case commandTimeout(command: String, after: Duration)
    /// The controller's answer could not be read.
    case invalidAnswer(String)
    /// The device did not accept the connection in time (it is not advertising, or out of range).
    case connectTimeout(peer: String, after: Duration)
    /// The connection could not be made.
    case connectFailed(peer: String, status: HCIStatus)
    /// A scan found no device that matches.
    case notFound(String)
    /// The connection ended.
    case disconnected(String)
    /// Another scan or connection attempt is running on this controller.
    case busy(String)
    /// Parameters the host cannot use.
    case invalidParameters(String)
    /// The host was closed or has not been started.
    case closed(String)
    /// The caller's task was cancelled (e.g. advertising was stopped).
    case cancelled(String)

    /// A one-line message.
    public var description: String {
        switch self {
        case .transport(let error): return error.description
        case .commandFailed(let command, let status): return "the controller refused \(command): \(status)"
        case .commandTimeout(let command, let after): return "the controller did not answer \(command) within \(after)"
        case .invalidAnswer(let what): return "invalid answer from the controller: \(what)"
        case .connectTimeout(let peer, let after):
            return "\(peer) did not accept a connection within \(after): is it advertising and in range?"
        case .connectFailed(let peer, let status): return "cannot connect to \(peer): \(status)"
        case .notFound(let what): return what
        case .disconnected(let reason): return "disconnected: \(reason)"
        case .busy(let what): return what
        case .invalidParameters(let what): return what
        case .closed(let reason): return "the LE host is closed: \(reason)"
        case .cancelled(let what): return what
        }
    }
}
