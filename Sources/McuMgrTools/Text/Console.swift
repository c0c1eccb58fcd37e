import Glibc
import POSIXIO

/// Unbuffered output on standard output and standard error, shared by a program's messages and
/// its progress display so that their lines never interleave out of order.
public enum Console {
    /// Standard output's file descriptor.
    public static let standardOutput: Int32 = 1
    /// Standard error's file descriptor.
    public static let standardError: Int32 = 2

    /// Writes `text` as it is to `fd` (all of it, under POSIXIO's write policy; stops quietly when
    /// `fd` refuses it, e.g. closed).
    public static func write(_ text: String, to fd: Int32) {
        try? BlockingWrite.all(text, to: fd)
    }

    /// Writes `line` and a newline to standard output.
    public static func out(_ line: String) {
        write(line + "\n", to: standardOutput)
    }

    /// Writes `line` and a newline to standard error.
    public static func err(_ line: String) {
        write(line + "\n", to: standardError)
    }

    /// Whether `fd` is a terminal.
    public static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// Ends the process with `status`.
    public static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }
}
