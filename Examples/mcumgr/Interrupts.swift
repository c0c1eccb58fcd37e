import Dispatch
import McuMgrTools
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns the first SIGINT or SIGTERM into a call of `onInterrupt` (a fleet cancels, then prints
/// its report; a download stops and removes its partial file); a second one ends the process at
/// once with status 130.
final class Interrupts: Sendable {
    private let sources: Mutex<[any DispatchSourceSignal]>

    /// Listens for SIGINT and SIGTERM; the message on the first one says that `what` is being cancelled.
    init(cancelling what: String = "every device", onInterrupt: @escaping @Sendable () -> Void) {
        let count = Mutex(0)
        var made: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
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
            source.resume()
            made.append(source)
        }
        sources = Mutex(made)
    }

    /// Stops listening and restores the default handlers.
    func stop() {
        let all = sources.withLock { sources -> [any DispatchSourceSignal] in
            defer { sources.removeAll() }
            return sources
        }
        for source in all { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    /// Runs `body` in a task that the first SIGINT or SIGTERM cancels, so that it ends through its
    /// own error path (and cleans up) instead of the process dying in the middle.
    static func cancelling<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        let interrupts = Interrupts(cancelling: what) { task.cancel() }
        defer { interrupts.stop() }
        return try await task.value
    }
}
