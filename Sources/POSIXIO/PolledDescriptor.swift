import Glibc
import NIOConcurrencyHelpers
import Synchronization

/// A non-blocking file descriptor served by a thread of its own: what the descriptor receives
/// waits in order for one reader, writes wait in call order until the descriptor takes them.
///
/// The thread polls the descriptor and a wake-up pipe. It reads while fewer than `readAhead`
/// reads wait for the reader (each at most `readSize` bytes), so a slow reader makes the peer
/// wait instead of growing memory; it writes what callers queued when `poll` says there is room.
///
/// - Reads: ``read(maximumCount:)`` gives bytes in arrival order, then ``DescriptorRead/end(_:)``
///   once (after every byte read before the end), then `nil`. On a byte stream one read of the
///   descriptor is one chunk, which a reader may take in parts; on a datagram socket
///   (`SOCK_SEQPACKET`, `SOCK_DGRAM`) each read is one whole datagram, never joined or split.
/// - Writes: ``write(_:)`` writes at once when nothing is queued and the descriptor takes it all;
///   otherwise the bytes wait, in call order, and the thread writes them (partial writes continue
///   where they stopped) under the one write policy of `WriteAttempt`. On a datagram socket each
///   write is one `send`. A failed write ends a byte stream (it is out of step); on a datagram
///   socket only that datagram fails.
/// - Ending: the owner's ``close()``, the peer's close (end of file) or a failed call ends the I/O
///   once: queued writes fail with the reason, the reader gets it after the bytes already read, and
///   the descriptor is closed once (an adopted one) or given back (a borrowed one) before any
///   ``close()`` returns, however many callers close at once.
public final class PolledDescriptor: Sendable {
    /// How the descriptor carries bytes.
    public enum Kind: Sendable, Hashable {
        /// A byte stream (a tty, a pipe, `SOCK_STREAM`): reads and writes may split or join.
        case byteStream
        /// Datagrams (`SOCK_SEQPACKET`, `SOCK_DGRAM`): one `recv` is one datagram, one write one `send`.
        case datagrams
    }

    /// The descriptor, for calls that neither read nor write it (`getsockopt`, `ioctl`); valid
    /// until the I/O ends.
    public let descriptor: Int32
    /// How the descriptor carries bytes.
    public let kind: Kind
    let readSize: Int
    let readAhead: Int
    let writesStopOnCancellation: Bool
    let isSocket: Bool
    let release: Release
    let wake: WakePipe
    // pthread mutexes, not `Synchronization.Mutex`: on Linux the latter hands a contended lock over
    // inside the kernel (`FUTEX_LOCK_PI`), where ThreadSanitizer sees no release/acquire, so sections
    // contended by the I/O thread and the tasks were reported as data races under `make sanitize`.
    let state: NIOLockedValueBox<PolledDescriptorState>
    /// Held by the thread while it reads and queues what it read, and while it gives the descriptor
    /// back: so ``bytesWaiting()`` never misses bytes between the kernel and the queue, and never
    /// asks a descriptor that is closed. Writers and the reader never take it.
    let inputLock = NIOLock()
    private let writeIDs = Atomic<UInt64>(0)

    /// What happens to the descriptor when the I/O ends.
    enum Release: Sendable {
        /// Closed, after `beforeClose` ran on it.
        case close(beforeClose: (@Sendable (Int32) -> Void)?)
        /// Left open, its file status flags as they were.
        case restoreFlags(Int32)
    }

    /// Takes ownership of `descriptor`, makes it non-blocking and starts its thread (named
    /// `threadName`; `ps` shows 15 bytes); the descriptor is closed when the I/O ends, after
    /// `beforeClose` ran on it. When this throws the descriptor is still the caller's.
    ///
    /// - Parameters:
    ///   - descriptor: the open descriptor, now this object's (closed when it is done).
    ///   - kind: a byte stream or a datagram (SEQPACKET) socket.
    ///   - readSize: the most bytes one read takes; on a datagram socket a longer datagram arrives
    ///     cut to this size (ask for one byte more than the largest you accept, to spot them).
    ///   - readAhead: how many reads wait for the reader before the thread stops reading.
    ///   - writesStopOnCancellation: a write whose task is cancelled gives up where it is
    ///     (``DescriptorWriteError/cancelled``); otherwise it completes or fails regardless.
    ///   - connecting: a non-blocking `connect` is in progress: nothing is read or written until it
    ///     completes (see ``waitUntilConnected()``).
    ///   - threadName: the name of the descriptor's thread (seen in `ps -L` and debuggers).
    ///   - beforeClose: called with the descriptor just before it is closed.
    public convenience init(
        adopting descriptor: Int32, kind: Kind, readSize: Int, readAhead: Int, writesStopOnCancellation: Bool = false,
        connecting: Bool = false, threadName: String, beforeClose: (@Sendable (Int32) -> Void)? = nil
    ) throws(SystemCallError) {
        try self.init(
            descriptor: descriptor, kind: kind, readSize: readSize, readAhead: readAhead,
            writesStopOnCancellation: writesStopOnCancellation, connecting: connecting, threadName: threadName,
            release: { _ in .close(beforeClose: beforeClose) })
    }

    /// Serves `descriptor` without owning it: made non-blocking while served, it is left open
    /// with its flags restored when the I/O ends (before ``close()`` returns).
    public convenience init(borrowing descriptor: Int32, kind: Kind, readSize: Int, readAhead: Int, threadName: String) throws(SystemCallError) {
        try self.init(
            descriptor: descriptor, kind: kind, readSize: readSize, readAhead: readAhead, writesStopOnCancellation: false,
            connecting: false, threadName: threadName, release: { flags in .restoreFlags(flags) })
    }

    private init(
        descriptor: Int32, kind: Kind, readSize: Int, readAhead: Int, writesStopOnCancellation: Bool, connecting: Bool,
        threadName: String, release: (Int32) -> Release
    ) throws(SystemCallError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw SystemCallError(call: "fcntl", errno: errno)
        }
        let wake: WakePipe
        do {
            wake = try WakePipe()
        } catch {
            _ = fcntl(descriptor, F_SETFL, flags)
            throw error
        }
        var status = stat()
        self.descriptor = descriptor
        self.kind = kind
        self.readSize = max(1, readSize)
        self.readAhead = max(1, readAhead)
        self.writesStopOnCancellation = writesStopOnCancellation
        self.isSocket = fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK
        self.release = release(flags)
        self.wake = wake
        self.state = NIOLockedValueBox(PolledDescriptorState(connecting: connecting))
        do {
            try DetachedThread.start(name: threadName) { self.run() }
        } catch {
            wake.close()
            _ = fcntl(descriptor, F_SETFL, flags)
            throw SystemCallError(call: "pthread_create", errno: error.code)
        }
    }

    // MARK: Reading

    /// The next bytes received, waiting for some: on a byte stream at most `maximumCount` of them
    /// (the rest come next); on a datagram socket one whole datagram, whatever `maximumCount`.
    /// Then, once, why the I/O ended; then `nil`. One reader at a time.
    public func read(maximumCount: Int = .max) async -> DescriptorRead? {
        let limit = max(1, maximumCount)
        return await withCheckedContinuation { (continuation: CheckedContinuation<DescriptorRead?, Never>) in
            let ready: DescriptorRead?? = state.withLockedValue { s in
                let wasFull = s.received.count >= readAhead
                if let bytes = s.take(upTo: limit, whole: kind == .datagrams) {
                    // The thread stopped reading at the read-ahead limit: tell it there is room again.
                    if wasFull && s.received.count < readAhead { wakeThread(&s) }
                    return .some(.bytes(bytes))
                }
                if let end = s.end {
                    if s.endDelivered { return .some(nil) }
                    s.endDelivered = true
                    return .some(.end(end))
                }
                precondition(s.reader == nil, "PolledDescriptor.read: one reader at a time")
                s.reader = continuation
                s.readerLimit = limit
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Bytes received and not taken yet: those read ahead plus what the kernel holds (`FIONREAD`);
    /// 0 once the I/O has ended.
    public func bytesWaiting() -> Int {
        inputLock.withLock {
            let queued = state.withLockedValue { s in s.end == nil ? s.receivedByteCount : nil }
            guard let queued else { return 0 }
            var kernel: Int32 = 0
            return queued + (ioctl(descriptor, UInt(FIONREAD), &kernel) == 0 ? Int(max(kernel, 0)) : 0)
        }
    }

    // MARK: Writing

    /// Writes all of `bytes` (on a datagram socket: as one datagram) after the bytes of every
    /// earlier call, waiting while the descriptor is full.
    public func write(_ bytes: [UInt8]) async throws(DescriptorWriteError) {
        let result: Result<Void, DescriptorWriteError>
        if writesStopOnCancellation {
            let id = writeIDs.add(1, ordering: .relaxed).newValue
            result = await withTaskCancellationHandler {
                await enqueue(bytes, id: id)
            } onCancel: {
                withdraw(id)
            }
        } else {
            result = await enqueue(bytes, id: 0)
        }
        try result.get()
    }

    private func enqueue(_ bytes: [UInt8], id: UInt64) async -> Result<Void, DescriptorWriteError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, DescriptorWriteError>, Never>) in
            let outcome: Result<Void, DescriptorWriteError>? = state.withLockedValue { s in
                if let end = s.end ?? s.requestedEnd { return .failure(.ended(end)) }
                // Checked under the lock that withdraw takes: either it sees this write, or this sees the cancellation.
                if writesStopOnCancellation && Task.isCancelled { return .failure(.cancelled) }
                var offset = 0
                if s.writes.isEmpty && !s.connecting {
                    switch attemptWrite(bytes, offset: &offset) {
                    case .complete:
                        return .success(())
                    case .failed(let code):
                        let error = SystemCallError(call: writeCall, errno: code)
                        if kind == .datagrams { return .failure(.refused(error)) }
                        s.requestedEnd = .failed(error)
                        wakeThread(&s)
                        return .failure(.ended(.failed(error)))
                    case .wouldBlock, .noBuffers:
                        break
                    }
                }
                // Behind other writes the thread already polls for POLLOUT: only the first needs it woken.
                if s.writes.isEmpty { wakeThread(&s) }
                s.writes.append(PendingWrite(id: id, bytes: bytes, offset: offset, continuation: continuation))
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
    }

    /// Takes a cancelled write out of the queue (a byte stream keeps what was written of it).
    private func withdraw(_ id: UInt64) {
        let withdrawn = state.withLockedValue { s -> CheckedContinuation<Result<Void, DescriptorWriteError>, Never>? in
            guard let index = s.writes.firstIndex(where: { $0.id == id }) else { return nil }
            return s.writes.remove(at: index).continuation
        }
        withdrawn?.resume(returning: .failure(.cancelled))
    }

    /// One non-blocking attempt at what is left of a queued write (under the state lock).
    func attemptWrite(_ bytes: [UInt8], offset: inout Int) -> WriteAttempt {
        bytes.withUnsafeBytes { raw in
            kind == .datagrams
                ? WriteAttempt.sendDatagram(descriptor, raw)
                : WriteAttempt.writeAvailable(descriptor, raw, offset: &offset, socket: isSocket)
        }
    }

    /// The call a failed write names.
    var writeCall: String { kind == .datagrams || isSocket ? "send" : "write" }

    // MARK: Connecting and ending

    /// Waits until the non-blocking `connect` in progress (`connecting: true`) has completed;
    /// throws why the I/O ended, e.g. ``DescriptorEnd/failed(_:)`` of `connect` with the socket's
    /// error, or ``DescriptorEnd/closed`` when the owner closed it first (a time limit).
    public func waitUntilConnected() async throws(DescriptorEnd) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, DescriptorEnd>, Never>) in
            let outcome: Result<Void, DescriptorEnd>? = state.withLockedValue { s in
                if let end = s.end { return .failure(end) }
                if !s.connecting { return .success(()) }
                s.connectWaiters.append(continuation)
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
        try result.get()
    }

    /// Ends the I/O (unless it has ended) and returns once the descriptor is closed or given back.
    /// Any number of callers may close at once; the reader still gets the bytes read before the end.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let released = state.withLockedValue { s -> Bool in
                if s.released { return true }
                if s.requestedEnd == nil { s.requestedEnd = .closed }
                s.closeWaiters.append(continuation)
                wakeThread(&s)
                return false
            }
            if released { continuation.resume() }
        }
    }

    /// Wakes the thread from `poll` unless a wake-up is on its way or the I/O has ended (the pipe
    /// closes then). Called under the state lock.
    func wakeThread(_ s: inout PolledDescriptorState) {
        guard s.end == nil, !s.wakePending else { return }
        s.wakePending = true
        wake.signal()
    }
}
