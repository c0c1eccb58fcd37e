import Dispatch
import Glibc
import McuMgrTools
import Synchronization

/// Turns the first SIGINT or SIGTERM into a call of `onInterrupt` (a fleet cancels, then prints
/// its report; a download stops and removes its partial file); a second one ends the process at
/// once with status 130.
///
/// The handler is installed with `sigaction` before `init` returns and only writes the signal's
/// number into a pipe, which a dispatch source reads: a signal that comes at once is never lost
/// (a dispatch signal source registers later, on libdispatch's own thread, and the signal would be
/// ignored until then).
final class Interrupts: Sendable {
    private let reader: Mutex<(any DispatchSourceRead)?>

    /// Listens for SIGINT and SIGTERM; the message on the first one says that `what` is being cancelled.
    init(cancelling what: String = "every device", onInterrupt: @escaping @Sendable () -> Void) {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { ends = [-1, -1] }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        // Non-blocking: a handler never waits on a full pipe (a byte more or less changes nothing).
        for end in ends where end >= 0 {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        interruptPipe = writeEnd
        var action = sigaction()
        action.__sigaction_handler.sa_handler = noteInterrupt
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        for number in [SIGINT, SIGTERM] { sigaction(number, &action, nil) }

        let count = Mutex(0)
        let source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        source.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 16)
            let received = read(readEnd, &bytes, bytes.count)
            for _ in 0..<max(received, 0) {
                let first = count.withLock { value -> Bool in
                    value += 1
                    return value == 1
                }
                if first {
                    Console.err("mcumgr: interrupted: cancelling \(what) (interrupt again to stop at once)")
                    onInterrupt()
                } else {
                    Console.exit(ExitStatus.interrupted.rawValue)
                }
            }
        }
        source.setCancelHandler {
            close(readEnd)
            close(writeEnd)
        }
        source.resume()
        reader = Mutex(source)
    }

    /// Stops listening and restores the default handlers.
    func stop() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        interruptPipe = -1
        reader.withLock { $0.take() }?.cancel()
    }

    /// Runs `body` in a task that the first SIGINT or SIGTERM cancels, so that it ends through its
    /// own error path (and cleans up) instead of the process dying in the middle. The body starts
    /// once the handler is installed.
    static func cancelling<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let (installed, go) = AsyncStream<Void>.makeStream()
        let task = Task {
            for await _ in installed { break }
            return try await body()
        }
        let interrupts = Interrupts(cancelling: what) { task.cancel() }
        defer { interrupts.stop() }
        go.yield()
        return try await task.value
    }
}

/// The write end of the pipe the signal handler writes to (-1 when no `Interrupts` listens). Set
/// before the handler is installed and cleared after it is removed; the handler only reads it.
nonisolated(unsafe) private var interruptPipe: Int32 = -1

/// The SIGINT and SIGTERM handler: the signal's number, one byte, into the pipe (`write` is
/// async-signal-safe; nothing here allocates).
private func noteInterrupt(_ signal: Int32) {
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(interruptPipe, &byte, 1)
}
