import NIOConcurrencyHelpers
import POSIXThreads

#if canImport(Glibc)
import Glibc
#endif

/// An open, non-blocking tty or pty descriptor with async reads and whole, ordered writes.
///
/// A background thread polls the descriptor (and a wake pipe) only while a reader or writer
/// waits, and hands readiness to the waiting task. `write` is serialised: the bytes of one call
/// reach the line before those of the next call start, whatever the tasks. `close()` wakes every
/// waiter, stops the thread and closes the descriptor.
public final class SerialDescriptor: Sendable {
    /// The device path, for messages.
    public let path: String
    private let fd: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let clearsExclusiveOnClose: Bool
    // A pthread mutex, not `Synchronization.Mutex`: on Linux the latter hands a contended lock over
    // inside the kernel (`FUTEX_LOCK_PI`), where ThreadSanitizer sees no release/acquire, so sections
    // contended by the polling thread and the tasks were reported as data races under `make sanitize`.
    private let state = NIOLockedValueBox(State())

    private struct State {
        var closed = false
        var pipesClosing = false
        var threadDone = false
        var readWaiters: [CheckedContinuation<Void, Never>] = []
        var writeWaiters: [CheckedContinuation<Void, Never>] = []
        var writing = false
        var writerQueue: [CheckedContinuation<Void, Never>] = []
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What one attempt at a system call came to.
    private enum Attempt {
        case done(Int)
        case wait
        case retry
        case failed(SerialPortError)
    }

    /// Takes ownership of `fd` (made non-blocking here) and starts its polling thread.
    ///
    /// - Parameter clearsExclusiveOnClose: clear `TIOCEXCL` before closing, so that others may open the device again.
    public init(taking fd: Int32, path: String, clearsExclusiveOnClose: Bool = false) throws(SerialPortError) {
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            let error = SerialPort.systemError("pipe", path: path)
            Glibc.close(fd)
            throw error
        }
        for end in pipeFDs {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        self.fd = fd
        self.path = path
        self.wakeRead = pipeFDs[0]
        self.wakeWrite = pipeFDs[1]
        self.clearsExclusiveOnClose = clearsExclusiveOnClose
        do throws(DetachedThread.StartError) {
            try DetachedThread.start(name: "smp-serial \(path)") { [self] in self.pollLoop() }
        } catch {
            Glibc.close(fd)
            Glibc.close(pipeFDs[0])
            Glibc.close(pipeFDs[1])
            throw SerialPort.systemError("pthread_create", path: path, errno: error.code)
        }
    }

    /// Reads what is there (1 to `maximumCount` bytes), waiting until something is.
    ///
    /// Throws ``SerialPortError/hangup(path:)`` when the device went away, ``SerialPortError/closed``
    /// after `close()` (or when the task is cancelled).
    public func read(maximumCount: Int = 4096) async throws(SerialPortError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max(1, maximumCount))
        while true {
            if Task.isCancelled { throw .closed }
            let attempt = state.withLockedValue { s -> Attempt in
                if s.closed { return .failed(.closed) }
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                return classify(count, call: "read")
            }
            switch attempt {
            case .done(let count):
                buffer.removeLast(buffer.count - count)
                return buffer
            case .wait: await waitReady(forWriting: false)
            case .retry: continue
            case .failed(let error): throw error
            }
        }
    }

    /// How many received bytes wait to be read (`FIONREAD`); 0 once closed or when the driver cannot say.
    public func bytesWaiting() -> Int {
        state.withLockedValue { s in
            guard !s.closed else { return 0 }
            var count: Int32 = 0
            return ioctl(fd, UInt(FIONREAD), &count) == 0 ? Int(max(count, 0)) : 0
        }
    }

    /// Writes all of `bytes`, after the bytes of every earlier call; waits while the line is full.
    ///
    /// Cancelling the task stops the write where it is (``SerialPortError/closed``): the line then
    /// carries part of the bytes, which a receiver of console frames skips.
    public func write(_ bytes: [UInt8]) async throws(SerialPortError) {
        await takeWriteTurn()
        defer { passWriteTurn() }
        var offset = 0
        while offset < bytes.count {
            if Task.isCancelled { throw .closed }
            let attempt = state.withLockedValue { s -> Attempt in
                if s.closed { return .failed(.closed) }
                let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                return classify(count, call: "write")
            }
            switch attempt {
            case .done(let count): offset += count
            case .wait: await waitReady(forWriting: true)
            case .retry: continue
            case .failed(let error): throw error
            }
        }
    }

    /// Wakes every waiter (they throw ``SerialPortError/closed``), stops the thread and closes
    /// the descriptor; returns when it is closed.
    public func close() async {
        let woken = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
            guard !s.closed else { return [] }
            s.closed = true
            defer {
                s.readWaiters = []
                s.writeWaiters = []
                s.writerQueue = []
            }
            return s.readWaiters + s.writeWaiters + s.writerQueue
        }
        for waiter in woken { waiter.resume() }
        wake()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLockedValue { s -> Bool in
                if s.threadDone { return true }
                s.closeWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Turns a system call's result into what to do next.
    private func classify(_ result: Int, call: String) -> Attempt {
        if result > 0 { return .done(result) }
        if result == 0 { return call == "read" ? .failed(.hangup(path: path)) : .wait }
        let code = errno
        switch code {
        case EAGAIN, EWOULDBLOCK: return .wait
        case EINTR: return .retry
        case EIO, ENXIO, ENODEV, EPIPE: return .failed(.hangup(path: path))
        case EBADF: return .failed(.closed)
        default: return .failed(SerialPort.systemError(call, path: path, errno: code))
        }
    }

    private func waitReady(forWriting: Bool) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock that onCancel takes: either it sees this waiter, or this sees the cancellation.
                let closed = state.withLockedValue { s -> Bool in
                    if s.closed || Task.isCancelled { return true }
                    if forWriting { s.writeWaiters.append(continuation) } else { s.readWaiters.append(continuation) }
                    return false
                }
                if closed { continuation.resume() } else { wake() }
            }
        } onCancel: {
            let woken = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
                defer { if forWriting { s.writeWaiters = [] } else { s.readWaiters = [] } }
                return forWriting ? s.writeWaiters : s.readWaiters
            }
            for waiter in woken { waiter.resume() }
        }
    }

    private func takeWriteTurn() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLockedValue { s -> Bool in
                if s.closed || !s.writing {
                    s.writing = true
                    return true
                }
                s.writerQueue.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    private func passWriteTurn() {
        let next = state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
            if s.writerQueue.isEmpty {
                s.writing = false
                return nil
            }
            return s.writerQueue.removeFirst()
        }
        next?.resume()
    }

    /// Interrupts the thread's `poll` so that it picks up new waiters (or the close).
    private func wake() {
        state.withLockedValue { s in
            guard !s.pipesClosing else { return }
            var byte: UInt8 = 1
            _ = Glibc.write(wakeWrite, &byte, 1)
        }
    }

    /// The thread: poll the descriptor for what the waiters want, resume them when it is ready.
    private func pollLoop() {
        var drain = [UInt8](repeating: 0, count: 64)
        while true {
            let (wantRead, wantWrite, closed) = state.withLockedValue { s in (!s.readWaiters.isEmpty, !s.writeWaiters.isEmpty, s.closed) }
            if closed { break }
            var events: Int16 = 0
            if wantRead { events |= Int16(POLLIN) }
            if wantWrite { events |= Int16(POLLOUT) }
            var fds = [
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                pollfd(fd: events == 0 ? -1 : fd, events: events, revents: 0),
            ]
            let count = poll(&fds, 2, -1)
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[0].revents != 0 {
                while drain.withUnsafeMutableBytes({ Glibc.read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
            }
            let revents = Int32(fds[1].revents)
            guard revents != 0 else { continue }
            let failed = revents & (POLLHUP | POLLERR | POLLNVAL) != 0
            let woken = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
                var woken: [CheckedContinuation<Void, Never>] = []
                if failed || revents & POLLIN != 0 {
                    woken += s.readWaiters
                    s.readWaiters = []
                }
                if failed || revents & POLLOUT != 0 {
                    woken += s.writeWaiters
                    s.writeWaiters = []
                }
                return woken
            }
            for waiter in woken { waiter.resume() }
            // A hung-up descriptor stays "ready": wait for a waiter or the close, not in a spin.
            if failed && woken.isEmpty { usleep(10_000) }
        }
        state.withLockedValue { $0.pipesClosing = true }
        if clearsExclusiveOnClose { _ = ioctl(fd, UInt(TIOCNXCL)) }
        Glibc.close(fd)
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
        let waiters = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
            s.threadDone = true
            defer { s.closeWaiters = [] }
            return s.closeWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
