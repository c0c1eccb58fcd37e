import McuMgrConnection
import SMP

/// The exit statuses of `mcumgr` (and of any tool that wants the same contract).
public enum ExitStatus: Int32, Sendable, Hashable, CaseIterable {
    /// Success.
    case success = 0
    /// The device answered with an error (or with something that is not a valid answer).
    case device = 1
    /// The command line is wrong (unknown option, missing argument, bad value).
    case usage = 2
    /// The device could not be reached: transport failure or no response in time.
    case transport = 3
    /// An input file is missing, unreadable, or not a valid MCUboot image.
    case input = 4
    /// Interrupted.
    case interrupted = 130

    /// The status's name in `--json` error documents: `ok`, `device`, `usage`, `transport`, `input`
    /// or `interrupted`.
    public var kind: String {
        switch self {
        case .success: return "ok"
        case .device: return "device"
        case .usage: return "usage"
        case .transport: return "transport"
        case .input: return "input"
        case .interrupted: return "interrupted"
        }
    }
}

/// An error as a command reports it: one line (what went wrong and what to do) and the exit status.
///
/// Two failures are equal when they end a command alike: the same status and message.
public struct CommandFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The exit status.
    public let status: ExitStatus
    /// What went wrong and what to do, in one line.
    public let message: String
    /// The device's own error, when the device answered with one (its codes go into `--json` errors).
    public var deviceError: SMPDeviceError?

    /// Makes a failure.
    public init(_ status: ExitStatus, _ message: String, deviceError: SMPDeviceError? = nil) {
        self.status = status
        self.message = message
        self.deviceError = deviceError
    }

    /// The message.
    public var description: String { message }

    /// Whether both end a command alike (status and message).
    public static func == (lhs: CommandFailure, rhs: CommandFailure) -> Bool {
        lhs.status == rhs.status && lhs.message == rhs.message
    }

    /// Hashes the status and message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(message)
    }

    /// The failure as `--json` prints it on standard output: `{"error": {"kind", "message",
    /// "device_rc", "group", "group_rc"}}`. `device_rc` is the SMP-level status (`rc`) the device
    /// answered, `group` and `group_rc` a group's own error (SMP v2's `err`); each is `null` when
    /// the device answered no such error.
    public var jsonDocument: String {
        let group = deviceError?.groupError
        let body = JSONErrorBody(
            kind: status.kind, message: message, device_rc: deviceError?.status?.rawValue,
            group: group.map { Int($0.group.rawValue) }, group_rc: group?.rc)
        return (try? JSONOutput.encode(["error": body])) ?? #"{"error": {"kind": "\#(status.kind)"}}"#
    }
}

/// The object under `"error"` in a `--json` failure.
private struct JSONErrorBody: Encodable {
    let kind: String
    let message: String
    let device_rc: Int?
    let group: Int?
    let group_rc: Int?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(message, forKey: .message)
        try c.encode(device_rc, forKey: .device_rc)
        try c.encode(group, forKey: .group)
        try c.encode(group_rc, forKey: .group_rc)
    }

    private enum CodingKeys: String, CodingKey { case kind, message, device_rc, group, group_rc }
}
