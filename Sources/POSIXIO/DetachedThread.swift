import CThreadName
import Glibc

/// Work that runs on a thread of its own, outside the concurrency pool: a loop that polls a
/// descriptor for the life of a connection, or one blocking system call. A POSIX thread, started
/// detached, without Foundation's `Thread` (whose library the command-line tool would otherwise
/// load at every start).
public enum DetachedThread {
    /// Why no thread was started.
    public struct StartError: Error, Sendable, CustomStringConvertible {
        /// The `pthread_create` result (an errno value such as `EAGAIN`).
        public let code: Int32

        /// E.g. `cannot start a thread: Resource temporarily unavailable`.
        public var description: String { "cannot start a thread: \(String(cString: strerror(code)))" }
    }

    /// Runs `body` on a new detached thread called `name` (its first 15 bytes show in `ps` and
    /// debuggers); throws when the system has no thread to give.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(StartError) {
        let job = Unmanaged.passRetained(Job(name: name, body: body))
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            guard let raw = argument else { return nil }
            Unmanaged<Job>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, job.toOpaque())
        guard result == 0 else {
            job.release()
            throw StartError(code: result)
        }
        pthread_detach(thread)
    }

    /// Runs `body` on a thread of its own and returns its result, so that no thread of the
    /// concurrency pool blocks in it; where no thread can be started, runs it on the caller's.
    public static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            do {
                try start(name: name) { continuation.resume(returning: body()) }
            } catch {
                continuation.resume(returning: body())
            }
        }
    }

    /// What a new thread runs: it names itself, then runs the body.
    private final class Job: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }

        func run() {
            setName()
            body()
        }

        /// Linux keeps 15 bytes of a thread's name; cut on a character boundary.
        private func setName() {
            var bytes = 0
            let short = String(name.prefix { character in
                bytes += character.utf8.count
                return bytes <= 15
            })
            _ = cthread_set_name(short)
        }
    }
}
