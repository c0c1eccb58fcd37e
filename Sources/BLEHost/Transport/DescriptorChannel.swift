#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import Synchronization

/// An ``HCITransport`` over a file descriptor that carries H4 bytes: a TCP socket, a tty, or an HCI
/// user-channel socket (where each read is one packet, which the same decoder reads as well).
///
/// A thread of its own polls the descriptor. Writes wait, in call order, until the descriptor
/// takes every byte (partial writes continue where they stopped); reads go through
/// ``H4StreamDecoder`` and at most ``readAhead`` packets wait for the consumer before the thread
/// stops reading, so a slow host makes the controller wait instead of growing memory.
final class DescriptorChannel: HCITransport {
    /// Packets from the controller, then `.closed` once.
    let inbound: AsyncStream<HCITransportEvent>
    /// What the channel is connected to, e.g. `tcp:127.0.0.1:9001`.
    let description: String
    /// How many decoded packets wait for the consumer before the thread stops reading.
    static let readAhead = 256

    private let core: DescriptorCore

    /// Takes ownership of `descriptor` (made non-blocking here) and starts its thread.
    init(adopting descriptor: Int32, description: String, maximumACLLength: Int, logger: Logger) throws(HCITransportError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .io("cannot make \(description) non-blocking: \(errnoText())")
        }
        var wake: [Int32] = [-1, -1]
        guard pipe(&wake) == 0 else { throw .io("cannot create a pipe: \(errnoText())") }
        for end in wake {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        let core = DescriptorCore(
            descriptor: descriptor, wakeReader: wake[0], wakeWriter: wake[1], name: description,
            decoder: H4StreamDecoder(maximumACLLength: maximumACLLength), logger: logger)
        self.core = core
        self.description = description
        self.inbound = AsyncStream(unfolding: { await core.nextInbound() })
        let thread = Thread { core.run() }
        thread.name = "hci-\(descriptor)"
        thread.start()
    }

    func send(_ packet: HCIPacket) async throws(HCITransportError) {
        try await core.send(packet.h4Bytes).get()
    }

    func close() async {
        await core.close()
    }
}

/// The descriptor, its thread and the state both sides share.
private final class DescriptorCore: Sendable {
    let descriptor: Int32
    let wakeReader: Int32
    let wakeWriter: Int32
    let name: String
    let logger: Logger
    private let decoder: Mutex<H4StreamDecoder>
    private let state = Mutex(State())

    private struct PendingWrite {
        var bytes: [UInt8]
        var offset: Int
        let continuation: CheckedContinuation<Result<Void, HCITransportError>, Never>
    }

    private struct State {
        var pending: [PendingWrite] = []
        var received: [HCITransportEvent] = []
        var receivedHead = 0
        var reader: CheckedContinuation<HCITransportEvent?, Never>?
        var delivered = false
        var closing = false
        var closedReason: String?
        var closeWaiters: [CheckedContinuation<Void, Never>] = []

        var backlog: Int { received.count - receivedHead }
    }

    init(descriptor: Int32, wakeReader: Int32, wakeWriter: Int32, name: String, decoder: H4StreamDecoder, logger: Logger) {
        self.descriptor = descriptor
        self.wakeReader = wakeReader
        self.wakeWriter = wakeWriter
        self.name = name
        self.decoder = Mutex(decoder)
        self.logger = logger
    }

    // MARK: Consumer side

    func nextInbound() async -> HCITransportEvent? {
        await withCheckedContinuation { (continuation: CheckedContinuation<HCITransportEvent?, Never>) in
            enum Next { case event(HCITransportEvent?, wake: Bool), wait }
            let next = state.withLock { s -> Next in
                if s.backlog > 0 {
                    let event = s.received[s.receivedHead]
                    s.receivedHead += 1
                    if s.receivedHead == s.received.count {
                        s.received.removeAll(keepingCapacity: true)
                        s.receivedHead = 0
                    }
                    if case .closed = event { s.delivered = true }
                    return .event(event, wake: s.backlog == DescriptorChannel.readAhead - 1 && s.closedReason == nil)
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

    func send(_ bytes: [UInt8]) async -> Result<Void, HCITransportError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, HCITransportError>, Never>) in
            let outcome: Result<Void, HCITransportError>? = state.withLock { s in
                if let reason = s.closedReason { return .failure(.closed(reason: reason)) }
                if s.closing { return .failure(.closed(reason: "the transport was closed")) }
                var offset = 0
                if s.pending.isEmpty {
                    switch write(bytes, from: 0) {
                    case .written(let count) where count == bytes.count: return .success(())
                    case .written(let count): offset = count
                    case .failed(let error): return .failure(error)
                    }
                }
                s.pending.append(PendingWrite(bytes: bytes, offset: offset, continuation: continuation))
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) } else { signal() }
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

    private func signal() {
        state.withLock { s in
            guard s.closedReason == nil else { return }
            var one: UInt8 = 1
            _ = Glibc.write(wakeWriter, &one, 1)
        }
    }

    // MARK: The I/O thread

    private enum WriteOutcome {
        case written(Int)
        case failed(HCITransportError)
    }

    /// One non-blocking write of what is left of `bytes` (the caller holds the state lock).
    private func write(_ bytes: [UInt8], from offset: Int) -> WriteOutcome {
        var total = offset
        while total < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + total, bytes.count - total) }
            if count > 0 {
                total += count
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS { break }
            return .failed(.io("writing to \(name) failed: \(errnoText())"))
        }
        return .written(total - offset)
    }

    func run() {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var fds = [pollfd(fd: descriptor, events: 0, revents: 0), pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)]
        var reason = "the transport was closed"
        loop: while true {
            let (wantRead, wantWrite, closing) = state.withLock { s in
                (s.backlog < DescriptorChannel.readAhead, !s.pending.isEmpty, s.closing)
            }
            if closing { break loop }
            fds[0].events = Int16(wantRead ? POLLIN : 0) | Int16(wantWrite ? POLLOUT : 0)
            fds[0].revents = 0
            fds[1].revents = 0
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                reason = "poll failed: \(errnoText())"
                break loop
            }
            if fds[1].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 64)
                while Glibc.read(wakeReader, &sink, sink.count) > 0 {}
            }
            let revents = fds[0].revents
            if revents & Int16(POLLIN) != 0 || (revents & Int16(POLLHUP | POLLERR) != 0 && wantRead) {
                let count = Glibc.read(descriptor, &buffer, buffer.count)
                if count == 0 {
                    reason = "\(name) closed the connection"
                    break loop
                }
                if count < 0 {
                    if errno != EAGAIN && errno != EINTR && errno != EWOULDBLOCK {
                        reason = "reading from \(name) failed: \(errnoText())"
                        break loop
                    }
                } else if let failure = deliver(buffer[0..<count]) {
                    reason = failure
                    break loop
                }
            } else if revents & Int16(POLLNVAL | POLLERR | POLLHUP) != 0 && !wantRead {
                if revents & Int16(POLLNVAL) != 0 || revents & Int16(POLLERR) != 0 {
                    reason = "\(name) failed"
                    break loop
                }
            }
            if let failure = flushWrites() {
                reason = failure
                break loop
            }
        }
        finish(reason)
    }

    /// Decodes read bytes and queues their packets; returns a reason when the stream is out of step.
    private func deliver(_ bytes: ArraySlice<UInt8>) -> String? {
        var packets: [HCITransportEvent] = []
        let failure: String? = decoder.withLock { decoder in
            do {
                try decoder.append(bytes) { output in
                    switch output {
                    case .packet(let packet): packets.append(.packet(packet))
                    case .ignored(let type, let length): logger.debug("ignored an HCI \(type) packet of \(length) bytes")
                    case .skipped(let error): logger.notice("\(error)")
                    }
                }
                return nil
            } catch {
                return "\(error)"
            }
        }
        if !packets.isEmpty {
            let handoff = state.withLock { s -> (CheckedContinuation<HCITransportEvent?, Never>, HCITransportEvent)? in
                s.received += packets
                guard let reader = s.reader else { return nil }
                s.reader = nil
                let event = s.received[s.receivedHead]
                s.receivedHead += 1
                if s.receivedHead == s.received.count {
                    s.received.removeAll(keepingCapacity: true)
                    s.receivedHead = 0
                }
                return (reader, event)
            }
            if let (reader, event) = handoff { reader.resume(returning: event) }
        }
        return failure
    }

    /// Writes queued bytes until the descriptor would block; returns a reason when writing failed.
    private func flushWrites() -> String? {
        var finished: [(CheckedContinuation<Result<Void, HCITransportError>, Never>, Result<Void, HCITransportError>)] = []
        let failure: String? = state.withLock { s in
            while !s.pending.isEmpty {
                switch write(s.pending[0].bytes, from: s.pending[0].offset) {
                case .written(let count):
                    s.pending[0].offset += count
                    guard s.pending[0].offset == s.pending[0].bytes.count else { return nil }
                    finished.append((s.pending.removeFirst().continuation, .success(())))
                case .failed(let error):
                    return error.description
                }
            }
            return nil
        }
        for (continuation, result) in finished { continuation.resume(returning: result) }
        return failure
    }

    private func finish(_ reason: String) {
        let (writes, reader, waiters, event) = state.withLock { s in
            s.closedReason = reason
            let writes = s.pending
            s.pending = []
            s.received.append(.closed(reason: reason))
            var reader: CheckedContinuation<HCITransportEvent?, Never>?
            var event: HCITransportEvent?
            if let waiting = s.reader {
                s.reader = nil
                event = s.received[s.receivedHead]
                s.receivedHead += 1
                if case .closed = event { s.delivered = true }
                reader = waiting
            }
            let waiters = s.closeWaiters
            s.closeWaiters = []
            return (writes, reader, waiters, event)
        }
        for write in writes { write.continuation.resume(returning: .failure(.closed(reason: reason))) }
        if let reader { reader.resume(returning: event) }
        Glibc.close(descriptor)
        Glibc.close(wakeReader)
        Glibc.close(wakeWriter)
        logger.debug("\(name): \(reason)")
        for waiter in waiters { waiter.resume() }
    }
}

/// `strerror(errno)` and the number.
func errnoText(_ code: Int32 = errno) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}
