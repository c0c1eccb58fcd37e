import Foundation

/// Runs a blocking system call (a TCP connect with its timeout, opening a tty) on a thread of its
/// own, so that no task of the concurrency pool blocks.
func offThread<T: Sendable>(_ name: String, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.name = name
        thread.start()
    }
}
