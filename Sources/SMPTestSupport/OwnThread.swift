import Foundation

/// Heavy synchronous work (writing a 100 MiB zip, compressing, hashing) on a thread of its own.
///
/// A synchronous test body, or synchronous work inside an async one, holds one of the concurrency
/// runtime's pool threads, of which a 2-core machine has two: two such bodies at once stall every
/// other test's tasks (sessions over real sockets then miss their timeouts). Run it here instead.
public enum OwnThread {
    /// Runs `body` on a new thread and returns what it returns, or throws what it throws.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = "test-work"
            thread.start()
        }
    }
}
