import Dispatch
import Glibc
import Synchronization

/// Waits for a reason to stop: SIGINT or SIGTERM, or (when asked) the end of standard input.
enum StopWaiter {
    /// Why the wait ended.
    enum Reason: Sendable, CustomStringConvertible {
        case signal(Int32)
        case endOfInput

        var description: String {
            switch self {
            case .signal(let number): return "signal \(number)"
            case .endOfInput: return "end of standard input"
            }
        }
    }

    /// Signal sources, kept alive for the life of the process.
    private static let sources = SignalSources()

    /// Returns at the first of `signals`, or when standard input closes if `watchesStandardInput`
    /// (so that a parent that dies without signalling still takes the simulator with it).
    static func wait(for signals: [Int32] = [SIGINT, SIGTERM], watchesStandardInput: Bool) async -> Reason {
        await withCheckedContinuation { (continuation: CheckedContinuation<Reason, Never>) in
            let pending = Mutex<CheckedContinuation<Reason, Never>?>(continuation)
            let resume: @Sendable (Reason) -> Void = { reason in
                pending.withLock { slot in
                    slot?.resume(returning: reason)
                    slot = nil
                }
            }
            for number in signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { resume(.signal(number)) }
                source.resume()
                sources.keep(source)
            }
            if watchesStandardInput {
                DispatchQueue.global().async {
                    var buffer = [UInt8](repeating: 0, count: 256)
                    while buffer.withUnsafeMutableBytes({ read(0, $0.baseAddress, $0.count) }) > 0 {}
                    resume(.endOfInput)
                }
            }
        }
    }
}

/// Keeps dispatch signal sources alive; only appended to, under a lock.
private final class SignalSources: @unchecked Sendable {
    private let lock = Mutex(())
    private var sources: [any DispatchSourceSignal] = []

    func keep(_ source: any DispatchSourceSignal) {
        lock.withLock { _ in sources.append(source) }
    }
}
