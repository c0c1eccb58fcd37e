import Glibc
import NIOConcurrencyHelpers
import SMPTestSupport
import Testing

@testable import POSIXIO

/// A bounded wait ran out.
struct GaveUp: Error {}

/// Descriptors for the engine's tests: socket pairs, pipes, waits for a real thread.
enum Descriptors {
    /// `socketpair(AF_UNIX, type)`, close-on-exec.
    static func socketPair(_ type: __socket_type) throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
        return (fds[0], fds[1])
    }

    /// A pipe, both ends close-on-exec; `nonBlockingWriter` makes the write end non-blocking.
    static func pipe(nonBlockingWriter: Bool) throws -> (reader: Int32, writer: Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&fds) == 0)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        if nonBlockingWriter { _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK) }
        return (fds[0], fds[1])
    }

    /// Makes `descriptor` non-blocking and writes `chunk` to it until the kernel takes no more;
    /// returns everything written, in order.
    static func fill(_ descriptor: Int32, with chunk: (Int) -> [UInt8]) -> [UInt8] {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var written: [UInt8] = []
        while true {
            let bytes = chunk(written.count)
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return written }
            written += bytes.prefix(count)
        }
    }

    /// Bytes the kernel holds for `descriptor` to read (`FIONREAD`).
    static func kernelQueue(_ descriptor: Int32) -> Int {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? Int(count) : -1
    }

    /// Waits until `condition` holds: for a real thread (the engine's, a writer's), polled every
    /// millisecond and bounded (times ``TestTimeScale``), so a broken engine fails instead of hanging.
    static func waitUntil(_ what: Comment, within limit: Duration = .seconds(60), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + TestTimeScale.scaled(limit)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("gave up waiting: \(what)")
                throw GaveUp()
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Reads from `engine` until `count` bytes came (or the engine ended).
    static func readBytes(_ count: Int, from engine: PolledDescriptor) async -> [UInt8] {
        var received: [UInt8] = []
        while received.count < count, case .bytes(let bytes)? = await engine.read() { received += bytes }
        return received
    }

    /// The engine's queued reads (count and bytes), as its thread left them.
    static func readAhead(of engine: PolledDescriptor) -> (reads: [Int], bytes: Int) {
        engine.state.withLockedValue { s in (s.received.map(\.count), s.receivedByteCount) }
    }
}

/// A value shared with a thread or an escaping closure (a `Mutex` cannot be captured). Locked with
/// NIO's pthread lock, not `Synchronization.Mutex`: the latter hands a contended lock over inside
/// the kernel, where ThreadSanitizer sees no release/acquire (docs/testing.md), and it reported
/// two `update`s from the engines' closing threads as a race.
final class Shared<Value: Sendable>: Sendable {
    private let box: NIOLockedValueBox<Value>

    init(_ value: Value) {
        box = NIOLockedValueBox(value)
    }

    var value: Value {
        get { box.withLockedValue { $0 } }
        set { box.withLockedValue { $0 = newValue } }
    }

    /// Changes the value under the lock.
    func update(_ change: (inout Value) -> Void) {
        box.withLockedValue { change(&$0) }
    }
}
