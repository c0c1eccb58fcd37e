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
/// polls the descriptor. Flow control works both ways: when a send would block (`EAGAIN`,
/// `ENOBUFS`) the PDU waits, in call order, until the socket takes it, and nothing is dropped;
/// and the bearer reads ahead at most ``readAhead`` PDUs that `inbound`'s consumer has not taken,
/// so a slow consumer makes the peer's sends wait instead of growing memory.
/// The bearer owns the descriptor and closes it when the bearer closes.
public final class FileDescriptorBearer: ATTBearer {
    /// PDUs from the peer, then `.closed` once.
    public let inbound: AsyncStream<ATTBearerEvent>
    /// The largest PDU sent or received (a larger incoming PDU is dropped with a log line).
    public let maximumPDUSize: Int
    /// How many received PDUs wait for the consumer before the bearer stops reading.
    public static let readAhead = 64

    private let core: BearerCore

    /// Takes ownership of `descriptor` (a connected `SOCK_SEQPACKET` socket), makes it non-blocking
    /// and starts reading. `maximumPDUSize` is the ATT bearer's PDU limit (an L2CAP MTU; 517 fits any ATT MTU).
    public init(adopting descriptor: Int32, maximumPDUSize: Int = 517, logger: Logger = Logger(label: "att-bearer")) throws(ATTBearerError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .io("cannot make descriptor \(descriptor) non-blocking: \(errnoText())")
        }
        var wake: [Int32] = [-1, -1]
        guard pipe(&wake) == 0 else { throw .io("cannot create a pipe: \(errnoText())") }
        for end in wake {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        let core = BearerCore(descriptor: descriptor, wakeReader: wake[0], wakeWriter: wake[1], maximumPDUSize: max(1, maximumPDUSize), logger: logger)
        self.core = core
        self.maximumPDUSize = core.maximumPDUSize
        self.inbound = AsyncStream(unfolding: { await core.nextInbound() })
        let thread = Thread { core.run() }
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
        try await core.send(pdu).get()
    }

    /// Closes the descriptor; `inbound` ends with `.closed` (after PDUs already read), and queued sends fail.
    public func close() async {
        await core.close()
    }
}

/// The descriptor, its I/O thread and the state both sides share (no reference back to the bearer,
/// so a bearer nobody holds is freed once its thread ends).
private final class BearerCore: Sendable {
    let descriptor: Int32
    let wakeReader: Int32
    let wakeWriter: Int32
    let maximumPDUSize: Int
    let logger: Logger
    private let state = Mutex(State())

    private struct PendingWrite {
        let pdu: [UInt8]
        let continuation: CheckedContinuation<Result<Void, ATTBearerError>, Never>
    }

    private struct State {
        var pending: [PendingWrite] = []
        var received: [ATTBearerEvent] = []
        var receivedHead = 0
        var reader: CheckedContinuation<ATTBearerEvent?, Never>?
        var delivered = false
        var closing = false
        var closedReason: String?
        var closeWaiters: [CheckedContinuation<Void, Never>] = []

        var backlog: Int { received.count - receivedHead }
    }

    init(descriptor: Int32, wakeReader: Int32, wakeWriter: Int32, maximumPDUSize: Int, logger: Logger) {
        self.descriptor = descriptor
        self.wakeReader = wakeReader
        self.wakeWriter = wakeWriter
        self.maximumPDUSize = maximumPDUSize
        self.logger = logger
    }

    // MARK: Consumer side

    func nextInbound() async -> ATTBearerEvent? {
        await withCheckedContinuation { (continuation: CheckedContinuation<ATTBearerEvent?, Never>) in
            enum Next { case event(ATTBearerEvent?, wake: Bool), wait }
            let next = state.withLock { s -> Next in
                if s.backlog > 0 {
                    let event = s.received[s.receivedHead]
                    s.receivedHead += 1
                    if s.receivedHead == s.received.count {
                        s.received.removeAll(keepingCapacity: true)
                        s.receivedHead = 0
                    }
                    if case .closed = event { s.delivered = true }
                    // The thread stops reading at the read-ahead limit: tell it there is room again.
                    return .event(event, wake: s.backlog == FileDescriptorBearer.readAhead - 1 && s.closedReason == nil)
                }
                if s.delivered { return .event(nil, wake: false) }
                s.reader = continuation
                return .wait
            }
            if case .event(let event, let wake) = next {
                if wake { signal() }
                continuation.resume(returning: event)
            }
        }
    }

    func send(_ pdu: [UInt8]) async -> Result<Void, ATTBearerError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, ATTBearerError>, Never>) in
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
    }

    func close() async {
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

    /// Wakes the thread (the write end stays open until the thread has ended).
    private func signal() {
        state.withLock { s in
            guard s.closedReason == nil else { return }
            var one: UInt8 = 1
            _ = Glibc.write(wakeWriter, &one, 1)
        }
    }

    // MARK: The I/O thread

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

    func run() {
        var buffer = [UInt8](repeating: 0, count: maximumPDUSize + 1)
        var reason = "the bearer was closed"
        var retryWrites = false
        while true {
            let (wantsWrite, wantsRead, closing) = state.withLock {
                (!$0.pending.isEmpty, $0.backlog < FileDescriptorBearer.readAhead, $0.closing)
            }
            if closing { break }
            var events: Int16 = 0
            if wantsRead { events |= Int16(POLLIN) }
            if wantsWrite { events |= Int16(POLLOUT) }
            var fds = [pollfd(fd: descriptor, events: events, revents: 0), pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
            // ENOBUFS may leave the socket "writable" with no buffer yet: retry after a millisecond.
            if poll(&fds, 2, retryWrites ? 1 : -1) < 0 {
                if errno == EINTR { continue }
                reason = "poll failed: \(errnoText())"
                break
            }
            if fds[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while drain.withUnsafeMutableBytes({ Glibc.read(wakeReader, $0.baseAddress, $0.count) }) > 0 {}
            }
            let revents = Int32(fds[0].revents)
            if revents & Int32(POLLNVAL) != 0 {
                reason = "the descriptor is not open"
                break
            }
            if wantsRead, revents & (Int32(POLLIN) | Int32(POLLHUP) | Int32(POLLERR)) != 0, let ended = readAvailable(into: &buffer) {
                reason = ended
                break
            }
            if wantsWrite || retryWrites {
                retryWrites = flushPending()
            }
        }
        finish(reason: reason)
    }

    /// Reads PDUs until the socket is empty or the read-ahead is full; returns why the connection ended, if it did.
    private func readAvailable(into buffer: inout [UInt8]) -> String? {
        while state.withLock({ $0.backlog < FileDescriptorBearer.readAhead }) {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                if count > maximumPDUSize {
                    logger.warning("dropping an incoming PDU larger than the bearer's \(maximumPDUSize)-byte limit")
                    continue
                }
                deliver(.pdu(Array(buffer[0..<count])))
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
        return nil
    }

    private func deliver(_ event: ATTBearerEvent) {
        let reader = state.withLock { s -> CheckedContinuation<ATTBearerEvent?, Never>? in
            if let reader = s.reader, s.backlog == 0 {
                s.reader = nil
                if case .closed = event { s.delivered = true }
                return reader
            }
            s.received.append(event)
            return nil
        }
        reader?.resume(returning: event)
    }

    /// Sends queued PDUs in order while the socket takes them; returns whether ENOBUFS-style
    /// back-off is needed.
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
        Glibc.close(wakeReader)
        Glibc.close(wakeWriter)
        for write in pending { write.continuation.resume(returning: .failure(.closed(reason: reason))) }
        deliver(.closed(reason: reason))
        for waiter in waiters { waiter.resume() }
    }
}

/// The current `errno` as text, e.g. "Resource temporarily unavailable (errno 11)".
func errnoText(_ code: Int32 = errno) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}
