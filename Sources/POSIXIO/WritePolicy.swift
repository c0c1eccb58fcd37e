import Glibc

/// The package's one way of writing to a descriptor, used by ``BlockingWrite`` and by
/// ``PolledDescriptor``'s writes alike:
///
/// - `EINTR` (a signal arrived before anything was written): the call is made again at once;
/// - a partial write: the next call continues where it stopped, until every byte is written;
/// - `EAGAIN` / `EWOULDBLOCK` (a non-blocking descriptor is full): wait until `poll` reports
///   `POLLOUT`, then go on;
/// - `ENOBUFS` (the kernel had no buffer, though `poll` may call the descriptor writable): wait a
///   millisecond, then go on;
/// - any other error ends the write with its `errno`;
/// - a datagram is sent whole with one `send`, never split or joined (a short send is `EMSGSIZE`).
///
/// Sockets are written with `send(MSG_NOSIGNAL)`, so a peer that has gone is `EPIPE`, not `SIGPIPE`.
enum WriteAttempt: Equatable {
    /// Every byte is written.
    case complete
    /// The descriptor takes no more now: wait for `POLLOUT`.
    case wouldBlock
    /// The kernel had no buffer: try again after a millisecond.
    case noBuffers
    /// The call failed with this `errno`.
    case failed(Int32)

    /// How long to wait after `ENOBUFS` before writing again, in milliseconds.
    static let noBuffersRetryMilliseconds: Int32 = 1

    /// Writes what is left of `bytes` from `offset` (advanced by what the descriptor takes) until
    /// all of it is written or the descriptor takes no more; `socket`: write with `send(MSG_NOSIGNAL)`.
    static func writeAvailable(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, offset: inout Int, socket: Bool) -> WriteAttempt {
        while offset < bytes.count {
            let start = bytes.baseAddress! + offset
            let count = socket
                ? Glibc.send(descriptor, start, bytes.count - offset, Int32(MSG_NOSIGNAL))
                : Glibc.write(descriptor, start, bytes.count - offset)
            if count > 0 {
                offset += count
                continue
            }
            // write(2) returns 0 only when it could take nothing now: wait as for EAGAIN.
            if count == 0 { return .wouldBlock }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case ENOBUFS: return .noBuffers
            case let code: return .failed(code)
            }
        }
        return .complete
    }

    /// Sends `datagram` whole with one non-blocking `send(MSG_NOSIGNAL)`.
    static func sendDatagram(_ descriptor: Int32, _ datagram: UnsafeRawBufferPointer) -> WriteAttempt {
        while true {
            let sent = Glibc.send(descriptor, datagram.baseAddress, datagram.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            if sent == datagram.count { return .complete }
            if sent >= 0 { return .failed(EMSGSIZE) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case ENOBUFS: return .noBuffers
            case let code: return .failed(code)
            }
        }
    }
}

/// Writes all of some bytes to a descriptor on the calling thread, under the package's one write
/// policy (see `WriteAttempt`): interrupted calls are made again, partial writes continue, a full
/// non-blocking descriptor is waited for with `poll`. For standard output and error, files and
/// pipes; a connection's descriptor belongs on a ``PolledDescriptor``.
public enum BlockingWrite {
    /// Writes every byte of `bytes` to `descriptor`, blocking the calling thread while it is full;
    /// throws the call's `errno` when the descriptor refuses them (part may have been written).
    public static func all(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(SystemCallError) {
        guard !bytes.isEmpty else { return }
        var offset = 0
        while true {
            switch WriteAttempt.writeAvailable(descriptor, bytes, offset: &offset, socket: false) {
            case .complete:
                return
            case .wouldBlock:
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                // Whatever wakes it (room, an error, a hang-up, a signal), the next write says what it was.
                _ = poll(&ready, 1, -1)
            case .noBuffers:
                _ = poll(nil, 0, WriteAttempt.noBuffersRetryMilliseconds)
            case .failed(let code):
                throw SystemCallError(call: "write", errno: code)
            }
        }
    }

    /// Writes every byte of `bytes` to `descriptor`, as the raw-buffer form does.
    public static func all(_ bytes: [UInt8], to descriptor: Int32) throws(SystemCallError) {
        try bytes.withUnsafeBytes { buffer in Result { () throws(SystemCallError) in try all(buffer, to: descriptor) } }.get()
    }

    /// Writes `text` as UTF-8 to `descriptor`, as the raw-buffer form does.
    public static func all(_ text: String, to descriptor: Int32) throws(SystemCallError) {
        var text = text
        try text.withUTF8 { utf8 in Result { () throws(SystemCallError) in try all(UnsafeRawBufferPointer(utf8), to: descriptor) } }.get()
    }
}
