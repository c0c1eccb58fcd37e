#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Synchronization

/// An ``ATTBearer`` over a `SOCK_SEQPACKET` file descriptor: a BlueZ L2CAP LE socket on the ATT
/// channel, or one end of `socketpair(AF_UNIX, SOCK_SEQPACKET)`.
///
/// One `recv` is one PDU and one `send` is one PDU; nothing is coalesced. A thread of its own
/// polls the descriptor: it reads every PDU that arrives, and when a send would block (`EAGAIN`,
/// `ENOBUFS`) it waits for writability and sends the queued PDUs in call order; nothing is dropped.
/// The bearer owns the descriptor and closes it when the bearer closes.
public final class FileDescriptorBearer: ATTBearer {
    /// PDUs from the peer, then `.closed` once.
    public let inbound: AsyncStream<ATTBearerEvent>
    /// The largest PDU sent or received (a larger incoming PDU is dropped with a log line).
    public let maximumPDUSize: Int

    private let descriptor: Int32
    private let wake: Int32
    private let wakeWriter: Int32
    private let sink: AsyncStream<ATTBearerEvent>.Continuation
    private let state = Mutex(State())
    private let logger: Logger

    private struct PendingWrite {
        let pdu: [UInt8]
        let continuation: CheckedContinuation<Result<Void, ATTBearerError>, Never>
    }

    private struct State {
        var pending: [PendingWrite] = []
        var closing = false
        var closedReason: String?
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Takes ownership of `descriptor` (a connected `SOCK_SEQPACKET` socket), makes it non-blocking
    /// and starts reading. `maximumPDUSize` is the ATT bearer's PDU limit (an L2CAP MTU; 517 fits any ATT MTU).
    public init(adopting descriptor: Int32, maximumPDUSize: Int = 517, logger: Logger = Logger(label: "att-bearer")) throws(ATTBearerError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .io("cannot make descriptor \(descriptor) non-blocking: \(errnoText())")
        }
        var wakePipe: [Int32] = [-1, -1]
        guard pipe(&wakePipe) == 0 else { throw .io("cannot create a pipe: \(errnoText())") }
        for end in wakePipe {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        self.descriptor = descriptor
        self.wake = wakePipe[0]
        self.wakeWriter = wakePipe[1]
        self.maximumPDUSize = max(1, maximumPDUSize)
        self.logger = logger
        (inbound, sink) = AsyncStream.makeStream(of: ATTBearerEvent.self)
        let thread = Thread { [self] in run() }
        thread.name = "att-bearer-\(descriptor)"
        thread.start()
    }

    /// Makes a connected pair over `socketpair(AF_UNIX, SOCK_SEQPACKET)`: what one end sends, the other receives.
    public static func socketPair(maximumPDUSize: Int = 517, logger: Logger = Logger(label: "att-bearer")) throws(ATTBearerError) -> (FileDescriptorBearer, FileDescriptorBearer) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw .io("socketpair(AF_UNIX, SOCK_SEQPACKET) failed: \(errnoText())")
        }
        let first: FileDescriptorBearer
        do {
            first = try FileDescriptorBearer(adopting: fds[0], maximumPDUSize: maximumPDUSize, logger: logger)
        } catch {
            Glibc.close(fds[0])
            Glibc.close(fds[1])
            throw error
        }
        do {
            return (first, try FileDescriptorBearer(adopting: fds[1], maximumPDUSize: maximumPDUSize, logger: logger))
        } catch {
            Glibc.close(fds[1])
            throw error
        }
    }

    /// Sends one PDU with one `send`; waits (in call order) while the socket has no room.
    public func send(_ pdu: [UInt8]) async throws(ATTBearerError) {
        guard pdu.count <= maximumPDUSize else { throw .pduTooLarge(size: pdu.count, limit: maximumPDUSize) }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, ATTBearerError>, Never>) in
            let outcome: Result<Void, ATTBearerError>? = state.withLock { s in
                if let reason = s.closedReason { return .failure(.closed(reason: reason)) }
                if s.closing { return .failure(.closed(reason: "the bearer was closed")) }
                if s.pending.isEmpty {
                    switch write(pdu) {
                    case .sent: return .success(())
                    case .failed(let error): return .failure(error)
                    case .wouldBlock: break
                    }
                }
                s.pending.append(PendingWrite(pdu: pdu, continuation: continuation))
                return nil
            }
            if let outcome {
                continuation.resume(returning: outcome)
            } else {
                signal()
            }
        }
        try result.get()
    }

    /// Closes the descriptor; `inbound` ends with `.closed`, and queued sends fail.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s -> Bool in
                if s.closedReason != nil { return true }
                s.closing = true
                s.closeWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() } else { signal() }
        }
    }

    // MARK: - The I/O thread

    private enum WriteOutcome {
        case sent
        case wouldBlock(noBuffers: Bool)
        case failed(ATTBearerError)
    }

    /// One non-blocking `send` of a whole PDU (the caller holds the state lock).
    private func write(_ pdu: [UInt8]) -> WriteOutcome {
        while true {
            let sent = pdu.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent == pdu.count { return .sent }
            if sent >= 0 { return .failed(.io("short send of \(sent) of \(pdu.count) bytes on a SOCK_SEQPACKET socket")) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock(noBuffers: false)
            case ENOBUFS: return .wouldBlock(noBuffers: true)
            case EPIPE, ECONNRESET, ENOTCONN: return .failed(.closed(reason: "the peer closed the connection"))
            default: return .failed(.io("send failed: \(errnoText())"))
            }
        }
    }

    private func signal() {
        var one: UInt8 = 1
        _ = Glibc.write(wakeWriter, &one, 1)
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: maximumPDUSize + 1)
        var reason = "the bearer was closed"
        var retryWrites = false
        loop: while true {
            let (wantsWrite, closing) = state.withLock { (!$0.pending.isEmpty, $0.closing) }
            if closing { break }
            var fds = [
                pollfd(fd: descriptor, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            // ENOBUFS may leave the socket "writable" with no buffer yet: retry after a millisecond.
            let ready = poll(&fds, 2, retryWrites ? 1 : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                reason = "poll failed: \(errnoText())"
                break
            }
            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while drain.withUnsafeMutableBytes({ Glibc.read(wake, $0.baseAddress, $0.count) }) > 0 {}
            }
            let events = Int32(fds[0].revents)
            if events & Int32(POLLNVAL) != 0 {
                reason = "the descriptor is not open"
                break
            }
            if events & (Int32(POLLIN) | Int32(POLLHUP) | Int32(POLLERR)) != 0 {
                if let ended = readAll(into: &buffer) {
                    reason = ended
                    break loop
                }
            }
            if wantsWrite || retryWrites {
                retryWrites = flushPending()
            }
        }
        finish(reason: reason)
    }

    /// Reads every PDU waiting; returns why the connection ended, if it did.
    private func readAll(into buffer: inout [UInt8]) -> String? {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                if count > maximumPDUSize {
                    logger.warning("dropping an incoming PDU larger than the bearer's \(maximumPDUSize)-byte limit")
                    continue
                }
                sink.yield(.pdu(Array(buffer[0..<count])))
                continue
            }
            if count == 0 { return "the peer closed the connection" }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            case ECONNRESET: return "the connection was reset"
            case ETIMEDOUT: return "the link timed out"
            default: return "receive failed: \(errnoText())"
            }
        }
    }

    /// Sends queued PDUs in order while the socket takes them; returns whether ENOBUFS-style
    /// back-off is needed (a PDU still waits though the socket reported room).
    private func flushPending() -> Bool {
        var resumed: [(CheckedContinuation<Result<Void, ATTBearerError>, Never>, Result<Void, ATTBearerError>)] = []
        let noBuffers = state.withLock { s -> Bool in
            while let first = s.pending.first {
                switch write(first.pdu) {
                case .sent:
                    resumed.append((first.continuation, .success(())))
                case .failed(let error):
                    resumed.append((first.continuation, .failure(error)))
                case .wouldBlock(let noBuffers):
                    return noBuffers
                }
                s.pending.removeFirst()
            }
            return false
        }
        for (continuation, result) in resumed { continuation.resume(returning: result) }
        return noBuffers
    }

    private func finish(reason: String) {
        let (pending, waiters) = state.withLock { s in
            s.closedReason = reason
            defer {
                s.pending = []
                s.closeWaiters = []
            }
            return (s.pending, s.closeWaiters)
        }
        Glibc.close(descriptor)
        Glibc.close(wake)
        Glibc.close(wakeWriter)
        for write in pending { write.continuation.resume(returning: .failure(.closed(reason: reason))) }
        sink.yield(.closed(reason: reason))
        sink.finish()
        for waiter in waiters { waiter.resume() }
    }
}

/// The current `errno` as text, e.g. "Resource temporarily unavailable (errno 11)".
func errnoText(_ code: Int32 = errno) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}
