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
}

/// An error as a command reports it: one line (what went wrong and what to do) and the exit status.
public struct CommandFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The exit status.
    public let status: ExitStatus
    /// What went wrong and what to do, in one line.
    public let message: String

    /// Makes a failure.
    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
