import Dispatch
import Glibc
import McuMgrTools
import Synchronization

/// Turns the first SIGINT or SIGTERM into a call of `onInterrupt` (a fleet cancels, then prints
/// its report); a second one ends the process at once with status 130.
final class Interrupts: Sendable {
    private let sources: Mutex<[any DispatchSourceSignal]>

    init(onInterrupt: @escaping @Sendable () -> Void) {
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
                    Console.err("mcumgr: interrupted: cancelling every device (interrupt again to stop at once)")
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
}
