import POSIXIO

/// Unbuffered line output, so that a parent process sees each line at once.
enum Console {
    /// Writes `line` and a newline to file descriptor `fd` (1 = standard output, 2 = standard
    /// error): all of it, under POSIXIO's write policy; nothing when `fd` refuses it.
    static func write(_ line: String, to fd: Int32) {
        try? BlockingWrite.all(line + "\n", to: fd)
    }
}
