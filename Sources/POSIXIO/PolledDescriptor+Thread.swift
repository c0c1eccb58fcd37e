import Glibc

/// The I/O thread: polls the descriptor for what is wanted (room to read, queued writes, a
/// connection to complete) and the wake-up pipe, until the I/O ends; then ends it once.
extension PolledDescriptor {
    /// What the thread is to do in one round, read under the lock.
    private struct Round {
        var requestedEnd: DescriptorEnd?
        var connecting: Bool
        var reading: Bool
        var writing: Bool
    }

    /// How a round of writing left the queue.
    private enum Flush {
        /// The descriptor takes no more now (or everything is written); `noBuffers`: the kernel had
        /// no buffer, so write again after a millisecond whether or not `poll` says `POLLOUT`.
        case waiting(noBuffers: Bool)
        /// A byte-stream write failed: the stream is out of step.
        case ended(DescriptorEnd)
    }

    /// How one read of the descriptor went.
    private enum ReadOutcome {
        case read(roomForMore: Bool)
        case interrupted
        case drained
        case ended(DescriptorEnd)
    }

    /// The thread's body.
    func run() {
        var buffer = [UInt8](repeating: 0, count: readSize)
        finish(serve(&buffer))
    }

    private func serve(_ buffer: inout [UInt8]) -> DescriptorEnd {
        var fds = [pollfd(fd: descriptor, events: 0, revents: 0), pollfd(fd: wake.reader, events: Int16(POLLIN), revents: 0)]
        var retryWrites = false
        // The peer hung up (or the descriptor failed) while the read-ahead was full: poll only the
        // wake-up pipe until the reader makes room, then read the end; a hung-up descriptor is
        // always "ready", and polling it would spin.
        var hungUp = false
        while true {
            let round = state.withLockedValue { s in
                s.wakePending = false
                return Round(
                    requestedEnd: s.requestedEnd, connecting: s.connecting, reading: !s.connecting && s.received.count < readAhead,
                    writing: !s.connecting && !s.writes.isEmpty)
            }
            if let end = round.requestedEnd { return end }
            if !round.writing { retryWrites = false }
            var events: Int32 = 0
            if round.connecting { events |= POLLOUT }
            if round.reading { events |= POLLIN }
            if round.writing && !retryWrites { events |= POLLOUT }
            let watching = round.connecting || round.reading || (round.writing && !hungUp)
            fds[0].fd = watching ? descriptor : -1
            fds[0].events = Int16(events)
            fds[0].revents = 0
            fds[1].revents = 0
            if poll(&fds, 2, retryWrites ? WriteAttempt.noBuffersRetryMilliseconds : -1) < 0 {
                if errno == EINTR { continue }
                return .failed(SystemCallError(call: "poll", errno: errno))
            }
            if fds[1].revents != 0 { wake.drain() }
            let revents = Int32(fds[0].revents)
            if revents & POLLNVAL != 0 { return .failed(SystemCallError(call: "poll", errno: EBADF)) }
            if round.connecting {
                if revents != 0, let end = completeConnection() { return end }
                continue
            }
            if round.reading, revents & (POLLIN | POLLHUP | POLLERR) != 0 {
                if let end = readAvailable(into: &buffer) { return end }
                hungUp = false
            } else if revents & (POLLHUP | POLLERR) != 0 {
                hungUp = true
            }
            if round.writing, retryWrites || revents & (POLLOUT | POLLHUP | POLLERR) != 0 {
                switch flushWrites() {
                case .waiting(let noBuffers): retryWrites = noBuffers
                case .ended(let end): return end
                }
            }
        }
    }

    /// Reads the socket's error once `connect` has finished; nil when connected.
    private func completeConnection() -> DescriptorEnd? {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { code = errno }
        if code != 0 { return .failed(SystemCallError(call: "connect", errno: code)) }
        let waiters = state.withLockedValue { s in
            s.connecting = false
            defer { s.connectWaiters = [] }
            return s.connectWaiters
        }
        for waiter in waiters { waiter.resume(returning: .success(())) }
        return nil
    }

    /// Reads while there is room: once on a byte stream (it may always have more; the next `poll`
    /// says), every waiting datagram on a datagram socket. Returns why the I/O ended, if it did.
    private func readAvailable(into buffer: inout [UInt8]) -> DescriptorEnd? {
        while true {
            switch readOnce(into: &buffer) {
            case .read(let roomForMore):
                if kind == .byteStream || !roomForMore { return nil }
            case .interrupted:
                continue
            case .drained:
                return nil
            case .ended(let end):
                return end
            }
        }
    }

    /// One `read` (byte stream) or `recv` (one datagram), queued for the reader with the lock that
    /// ``PolledDescriptor/bytesWaiting()`` takes, so that no byte is counted twice or missed.
    private func readOnce(into buffer: inout [UInt8]) -> ReadOutcome {
        var handoff: (CheckedContinuation<DescriptorRead?, Never>, [UInt8])?
        let outcome = inputLock.withLock { () -> ReadOutcome in
            let count = buffer.withUnsafeMutableBytes { raw in
                kind == .datagrams
                    ? recv(descriptor, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT))
                    : Glibc.read(descriptor, raw.baseAddress, raw.count)
            }
            if count == 0 { return .ended(.peerClosed) }
            if count < 0 {
                switch errno {
                case EINTR: return .interrupted
                case EAGAIN, EWOULDBLOCK: return .drained
                case let code: return .ended(.failed(SystemCallError(call: kind == .datagrams ? "recv" : "read", errno: code)))
                }
            }
            let bytes = Array(buffer[0..<count])
            return state.withLockedValue { s in
                handoff = s.receive(bytes, whole: kind == .datagrams)
                return .read(roomForMore: s.received.count < readAhead)
            }
        }
        if let (reader, bytes) = handoff { reader.resume(returning: .bytes(bytes)) }
        return outcome
    }

    /// Writes queued items in order while the descriptor takes them.
    private func flushWrites() -> Flush {
        var done: [(CheckedContinuation<Result<Void, DescriptorWriteError>, Never>, Result<Void, DescriptorWriteError>)] = []
        let flush = state.withLockedValue { s -> Flush in
            while !s.writes.isEmpty {
                switch attemptWrite(s.writes[0].bytes, offset: &s.writes[0].offset) {
                case .complete:
                    done.append((s.writes.removeFirst().continuation, .success(())))
                case .wouldBlock:
                    return .waiting(noBuffers: false)
                case .noBuffers:
                    return .waiting(noBuffers: true)
                case .failed(let code):
                    let error = SystemCallError(call: writeCall, errno: code)
                    guard kind == .datagrams else { return .ended(.failed(error)) }
                    done.append((s.writes.removeFirst().continuation, .failure(.refused(error))))
                }
            }
            return .waiting(noBuffers: false)
        }
        for (continuation, result) in done { continuation.resume(returning: result) }
        return flush
    }

    /// Ends the I/O once: fails queued writes, tells the waiting reader and connect waiters, closes
    /// or gives back the descriptor, closes the wake-up pipe, then lets every ``close()`` return.
    private func finish(_ end: DescriptorEnd) {
        let (writes, reader, connectWaiters) = state.withLockedValue { s in
            s.end = end
            let writes = s.writes
            s.writes = []
            let connectWaiters = s.connectWaiters
            s.connectWaiters = []
            // A reader waits only when nothing is queued: the end is the next thing it gets.
            let reader = s.reader
            if reader != nil {
                s.reader = nil
                s.endDelivered = true
            }
            return (writes, reader, connectWaiters)
        }
        inputLock.withLock {
            switch release {
            case .close(let beforeClose):
                beforeClose?(descriptor)
                _ = Glibc.close(descriptor)
            case .restoreFlags(let flags):
                _ = fcntl(descriptor, F_SETFL, flags)
            }
        }
        wake.close()
        let closeWaiters = state.withLockedValue { s in
            s.released = true
            defer { s.closeWaiters = [] }
            return s.closeWaiters
        }
        for write in writes { write.continuation.resume(returning: .failure(.ended(end))) }
        reader?.resume(returning: .end(end))
        for waiter in connectWaiters { waiter.resume(returning: .failure(end)) }
        for waiter in closeWaiters { waiter.resume() }
    }
}
