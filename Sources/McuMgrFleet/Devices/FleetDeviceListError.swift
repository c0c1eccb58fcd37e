/// Why a devices file or a UDP range could not be read. `mcumgr` reports these as usage errors
/// (exit status 2), except an unreadable file (4).
public enum FleetDeviceListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// A line names no device, two devices, or a malformed connection.
    case invalidLine(source: String, line: Int, text: String, reason: String)
    /// The file names no device (only blank and comment lines).
    case noDevices(source: String)
    /// The list names more devices than a fleet takes.
    case tooManyDevices(source: String, limit: Int)
    /// A UDP range is malformed or too large.
    case invalidRange(String, reason: String)

    /// What is wrong, where, and what a line looks like.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read the devices file \(path): \(reason)"
        case .invalidLine(let source, let line, let text, let reason):
            return "\(source) line \(line) ('\(text)'): \(reason)"
        case .noDevices(let source):
            return "\(source) names no device; write one per line, e.g. 'udp:192.0.2.1:1337 name'"
        case .tooManyDevices(let source, let limit):
            return "\(source) names more than \(limit) devices"
        case .invalidRange(let text, let reason):
            return "invalid UDP range '\(text)': \(reason); write FIRST-LAST[:PORT] (e.g. 127.0.0.2-127.0.0.65) or HOST:PORT-PORT"
        }
    }
}
