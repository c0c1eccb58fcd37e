#if canImport(Glibc)
import Glibc
#endif
import DequeModule
import Logging
import NIOConcurrencyHelpers
import POSIXThreads

/// What one read of a ``PolledDescriptor`` found.
package enum PolledRead: Sendable, Equatable {
    /// Read something (the events it made, if any, are in the batch): read again at once.
    case more
    /// Nothing more to read now, or read enough for one round: read again when `poll` says so.
    case drained
    /// The connection ended (peer closed, error, stream out of step): why.
    case ended(String)
}

/// What one attempt to write a queued item to a ``PolledDescriptor`` did.
package enum PolledWrite<Failure: Error> {
    /// The item is written entirely.
    case complete
    /// The descriptor takes no more now (the offset says how far the item got): wait for `POLLOUT`.
    case wouldBlock
    /// The kernel had no buffer (`ENOBUFS`): try again after a millisecond even without `POLLOUT`.
    case noBuffers
    /// Writing failed with this error.
    case failed(Failure)
}

/// A non-blocking file descriptor polled by a thread of its own: events read from it wait in
/// order for one consumer, writes wait in call order until the descriptor takes them.
///
/// The owner says how to read (one read gives zero or more events, or the reason the connection
/// ended) and how to write a queued item (whole datagrams or a byte stream continued from an
/// offset). At most `readAhead` events wait for the consumer before the thread stops reading, so a
/// slow consumer makes the peer wait instead of growing memory. A pipe wakes the thread when a
/// write is queued, there is room to read again, or the owner closes. When the connection ends,
/// queued writes fail with `closedError(reason)`, the consumer gets the events already read, then
/// `closedEvent(reason)` once, then `nil`. The core holds no reference to its owner, so an owner
/// nobody holds is freed once the thread ends.
package final class PolledDescriptor<Event: Sendable, Failure: Error>: Sendable {
    /// Reads once from the descriptor into the buffer, appends the events that makes to the batch.
    package typealias Reader = @Sendable (_ descriptor: Int32, _ buffer: inout [UInt8], _ batch: inout [Event]) -> PolledRead
    /// Writes (what is left of) an item once, advancing the offset by what the descriptor took.
    package typealias Writer = @Sendable (_ descriptor: Int32, _ item: [UInt8], _ offset: inout Int) -> PolledWrite<Failure>

    /// The descriptor (owned: closed when the thread ends).
    package let descriptor: Int32
    /// What the descriptor is, for messages.
    package let name: String
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let readAhead: Int
    private let readBufferSize: Int
    private let failedWriteEndsConnection: Bool
    private let closeReason: String
    private let closedEvent: @Sendable (String) -> Event
    private let closedError: @Sendable (String) -> Failure
    private let reader: Reader
    private let writer: Writer
    private let logger: Logger
    // A pthread mutex, not `Synchronization.Mutex`: on Linux the latter hands a contended lock over
    // inside the kernel (`FUTEX_LOCK_PI`), where ThreadSanitizer sees no release/acquire, so sections
    // contended by the I/O thread and the tasks were reported as data races under `make sanitize`.
    private let state = NIOLockedValueBox(State())

    private struct PendingWrite {
        let item: [UInt8]
        var offset: Int
        let continuation: CheckedContinuation<Result<Void, Failure>, Never>
    }

    private struct State {
        var pending: Deque<PendingWrite> = []
        var received: Deque<Event> = []
        var consumer: CheckedContinuation<Event?, Never>?
        var closing = false
        var closedReason: String?
        var closeWaiters: [CheckedContinuation<Void, Never>] = []

        var backlog: Int { received.count }
    }

    /// Takes ownership of `descriptor` and makes it non-blocking; ``start(threadName:)`` starts reading.
    /// `failedWriteEndsConnection` is for byte streams, where a write that fails while queued leaves
    /// the stream out of step; on datagram sockets only that item fails. `closeReason` is the
    /// reason given when the owner closes; `ioError` makes the error for a failed setup.
    package init(
        adopting descriptor: Int32, name: String, readAhead: Int, readBufferSize: Int, failedWriteEndsConnection: Bool,
        closeReason: String, closedEvent: @escaping @Sendable (String) -> Event,
        closedError: @escaping @Sendable (String) -> Failure, ioError: (String) -> Failure,
        logger: Logger, read: @escaping Reader, write: @escaping Writer
    ) throws(Failure) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw ioError("cannot make \(name) non-blocking: \(errnoText())")
        }
        var wake: [Int32] = [-1, -1]
        guard pipe(&wake) == 0 else { throw ioError("cannot create a pipe: \(errnoText())") }
        for end in wake {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        self.descriptor = descriptor
        self.name = name
        self.wakeReader = wake[0]
        self.wakeWriter = wake[1]
        self.readAhead = max(1, readAhead)
        self.readBufferSize = max(1, readBufferSize)
        self.failedWriteEndsConnection = failedWriteEndsConnection
        self.closeReason = closeReason
        self.closedEvent = closedEvent
        self.closedError = closedError
        self.reader = read
        self.writer = write
        self.logger = logger
    }

    /// Starts the thread that polls the descriptor (call once); when the system has no thread to
    /// give, the descriptor closes at once with that reason.
    package func start(threadName: String) {
        do {
            try DetachedThread.start(name: threadName) { self.run() }
        } catch {
            finish("\(error)")
        }
    }

    // MARK: Consumer side

    private enum Next {
        case event(Event?, wake: Bool)
        case wait
    }

    /// The next event, waiting for one; `nil` after the closed event (for `AsyncStream(unfolding:)`).
    package func nextEvent() async -> Event? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Event?, Never>) in
            let next = state.withLockedValue { s -> Next in
                if s.backlog > 0 {
                    let event = s.received.removeFirst()
                    // The thread stops reading at the read-ahead limit: tell it there is room again.
                    return .event(event, wake: s.backlog == readAhead - 1 && s.closedReason == nil)
                }
                // The closed event is the last one queued, and it has been taken.
                if s.closedReason != nil { return .event(nil, wake: false) }
                s.consumer = continuation
                return .wait
            }
            if case .event(let event, let wake) = next {
                if wake { signal() }
                continuation.resume(returning: event)
            }
        }
    }

    /// Writes `item` (at once when nothing is queued and the descriptor takes it), or queues it
    /// behind earlier ones until the thread has written it.
    package func send(_ item: [UInt8]) async -> Result<Void, Failure> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, Failure>, Never>) in
            let outcome: Result<Void, Failure>? = state.withLockedValue { s in
                if let reason = s.closedReason { return .failure(closedError(reason)) }
                if s.closing { return .failure(closedError(closeReason)) }
                var offset = 0
                if s.pending.isEmpty {
                    switch writer(descriptor, item, &offset) {
                    case .complete: return .success(())
                    case .failed(let error): return .failure(error)
                    case .wouldBlock, .noBuffers: break
                    }
                }
                s.pending.append(PendingWrite(item: item, offset: offset, continuation: continuation))
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) } else { signal() }
        }
    }

    /// Ends the connection and waits until the thread has closed the descriptor.
    package func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLockedValue { s -> Bool in
                if s.closedReason != nil { return true }
                s.closing = true
                s.closeWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() } else { signal() }
        }
    }

    /// Wakes the thread (the pipe stays open until the thread has ended).
    private func signal() {
        state.withLockedValue { s in
            guard s.closedReason == nil else { return }
            var one: UInt8 = 1
            _ = Glibc.write(wakeWriter, &one, 1)
        }
    }

    // MARK: The I/O thread

    private func run() {
        var buffer = [UInt8](repeating: 0, count: readBufferSize)
        var fds = [pollfd(fd: descriptor, events: 0, revents: 0), pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
        var reason = closeReason
        var retryWrites = false
        loop: while true {
            let (wantsRead, wantsWrite, closing) = state.withLockedValue { s in
                (s.backlog < readAhead, !s.pending.isEmpty, s.closing)
            }
            if closing { break loop }
            fds[0].events = Int16(wantsRead ? POLLIN : 0) | Int16(wantsWrite ? POLLOUT : 0)
            fds[0].revents = 0
            fds[1].revents = 0
            // ENOBUFS may leave the descriptor "writable" with no buffer yet: retry after a millisecond.
            if poll(&fds, 2, retryWrites ? 1 : -1) < 0 {
                if errno == EINTR { continue }
                reason = "poll failed: \(errnoText())"
                break loop
            }
            if fds[1].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 64)
                while Glibc.read(wakeReader, &sink, sink.count) > 0 {}
            }
            let revents = fds[0].revents
            if revents & Int16(POLLNVAL) != 0 {
                reason = "\(name) is not open"
                break loop
            }
            if wantsRead, revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                if let ended = readAvailable(into: &buffer) {
                    reason = ended
                    break loop
                }
            } else if revents & Int16(POLLERR) != 0 {
                reason = "\(name) failed"
                break loop
            }
            if wantsWrite || retryWrites {
                switch flushPending() {
                case .ended(let failure):
                    reason = failure
                    break loop
                case .retry(let noBuffers):
                    retryWrites = noBuffers
                }
            }
        }
        finish(reason)
    }

    /// Reads until the descriptor is empty or the read-ahead is full; returns why the connection ended, if it did.
    private func readAvailable(into buffer: inout [UInt8]) -> String? {
        while state.withLockedValue({ $0.backlog < readAhead }) {
            var batch: [Event] = []
            let status = reader(descriptor, &buffer, &batch)
            if !batch.isEmpty { deliver(batch) }
            switch status {
            case .more: continue
            case .drained: return nil
            case .ended(let reason): return reason
            }
        }
        return nil
    }

    /// Queues events for the consumer, handing the first to it if it waits.
    private func deliver(_ events: [Event]) {
        let handoff = state.withLockedValue { s -> (CheckedContinuation<Event?, Never>, Event)? in
            s.received.append(contentsOf: events)
            guard let consumer = s.consumer, s.backlog > 0 else { return nil }
            s.consumer = nil
            return (consumer, s.received.removeFirst())
        }
        if let (consumer, event) = handoff { consumer.resume(returning: event) }
    }

    private enum Flush {
        case retry(noBuffers: Bool)
        case ended(String)
    }

    /// Writes queued items in order while the descriptor takes them.
    private func flushPending() -> Flush {
        var resumed: [(CheckedContinuation<Result<Void, Failure>, Never>, Result<Void, Failure>)] = []
        let flush = state.withLockedValue { s -> Flush in
            while !s.pending.isEmpty {
                switch writer(descriptor, s.pending[0].item, &s.pending[0].offset) {
                case .complete:
                    resumed.append((s.pending.removeFirst().continuation, .success(())))
                case .failed(let error):
                    if failedWriteEndsConnection { return .ended("\(error)") }
                    resumed.append((s.pending.removeFirst().continuation, .failure(error)))
                case .wouldBlock:
                    return .retry(noBuffers: false)
                case .noBuffers:
                    return .retry(noBuffers: true)
                }
            }
            return .retry(noBuffers: false)
        }
        for (continuation, result) in resumed { continuation.resume(returning: result) }
        return flush
    }

    private func finish(_ reason: String) {
        let (writes, handoff, waiters) = state.withLockedValue { s in
            s.closedReason = reason
            let writes = s.pending
            s.pending.removeAll()
            s.received.append(closedEvent(reason))
            var handoff: (CheckedContinuation<Event?, Never>, Event)?
            if let consumer = s.consumer {
                s.consumer = nil
                handoff = (consumer, s.received.removeFirst())
            }
            let waiters = s.closeWaiters
            s.closeWaiters = []
            return (writes, handoff, waiters)
        }
        Glibc.close(descriptor)
        Glibc.close(wakeReader)
        Glibc.close(wakeWriter)
        for write in writes { write.continuation.resume(returning: .failure(closedError(reason))) }
        if let (consumer, event) = handoff { consumer.resume(returning: event) }
        logger.debug("\(name): \(reason)")
        for waiter in waiters { waiter.resume() }
    }
}

/// `strerror` of an `errno` value and the number, e.g. "Resource temporarily unavailable (errno 11)".
package func errnoText(_ code: Int32 = errno) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}
