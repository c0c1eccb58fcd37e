import Glibc

/// A non-blocking self-pipe that wakes a thread waiting in `poll`: the thread polls ``reader``,
/// others ``signal()``. Its owner decides when a signal is needed and closes it once, when no
/// signal can come any more. Public for loops of their own that poll another library's descriptor
/// (the D-Bus connection of SMPBLE's BlueZ transport).
public struct WakePipe: Sendable {
    /// The end the waiting thread polls for `POLLIN`.
    public let reader: Int32
    private let writer: Int32

    /// Opens the pipe, both ends non-blocking and close-on-exec.
    public init() throws(SystemCallError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SystemCallError(call: "pipe", errno: errno) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        reader = ends[0]
        writer = ends[1]
    }

    /// Makes ``reader`` readable (a full pipe is readable already).
    public func signal() {
        var one: UInt8 = 1
        _ = Glibc.write(writer, &one, 1)
    }

    /// Empties the pipe, so that the next `poll` waits again.
    public func drain() {
        var sink: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        while withUnsafeMutableBytes(of: &sink, { Glibc.read(reader, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Closes both ends.
    public func close() {
        _ = Glibc.close(reader)
        _ = Glibc.close(writer)
    }
}
