import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Waits for SIGINT or SIGTERM.
enum SignalWaiter {
    /// Signal sources, kept alive for the life of the process.
    private static let sources = Mutex<[any DispatchSourceSignal]>([])

    /// Returns the number of the first of `signals` delivered to the process.
    static func wait(for signals: [Int32] = [SIGINT, SIGTERM]) async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let pending = Mutex<CheckedContinuation<Int32, Never>?>(continuation)
            let resume: @Sendable (Int32) -> Void = { number in
                pending.withLock { slot in
                    slot?.resume(returning: number)
                    slot = nil
                }
            }
            for number in signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { resume(number) }
                source.resume()
                sources.withLock { $0.append(source) }
            }
        }
    }
}
