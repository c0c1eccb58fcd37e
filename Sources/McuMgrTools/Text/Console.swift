#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Unbuffered output on standard output and standard error, shared by a program's messages and
/// its progress display so that their lines never interleave out of order.
public enum Console {
    /// Standard output's file descriptor.
    public static let standardOutput: Int32 = 1
    /// Standard error's file descriptor.
    public static let standardError: Int32 = 2

    /// Writes `text` as it is to `fd` (retrying after interruptions; stops quietly when `fd` is closed).
    public static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                #if canImport(Glibc)
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                #elseif canImport(Musl)
                Musl.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                Darwin.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
            }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
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
        #if canImport(Glibc)
        Glibc.exit(status)
        #elseif canImport(Musl)
        Musl.exit(status)
        #else
        Darwin.exit(status)
        #endif
    }
}
