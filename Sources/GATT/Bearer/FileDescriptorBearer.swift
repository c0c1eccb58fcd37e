#if canImport(Glibc)
import Glibc
#endif
import Logging

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

    private let core: PolledDescriptor<ATTBearerEvent, ATTBearerError>

    /// Takes ownership of `descriptor` (a connected `SOCK_SEQPACKET` socket), makes it non-blocking
    /// and starts reading. `maximumPDUSize` is the ATT bearer's PDU limit (an L2CAP MTU; 517 fits any ATT MTU).
    public init(adopting descriptor: Int32, maximumPDUSize: Int = 517, logger: Logger = Logger(label: "att-bearer")) throws(ATTBearerError) {
        let limit = max(1, maximumPDUSize)
        core = try PolledDescriptor(
            adopting: descriptor, name: "descriptor \(descriptor)", readAhead: Self.readAhead, readBufferSize: limit + 1,
            failedWriteEndsConnection: false, closeReason: "the bearer was closed",
            closedEvent: { .closed(reason: $0) }, closedError: { .closed(reason: $0) }, ioError: { .io($0) }, logger: logger,
            read: { descriptor, buffer, batch in Self.receive(descriptor, &buffer, &batch, limit: limit, logger: logger) },
            write: { descriptor, pdu, _ in Self.send(descriptor, pdu) })
        self.maximumPDUSize = limit
        let core = self.core
        self.inbound = AsyncStream(unfolding: { await core.nextEvent() })
        core.start(threadName: "att-bearer-\(descriptor)")
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

    /// One `recv` (one PDU); a PDU over `limit` is dropped with a log line.
    private static func receive(_ descriptor: Int32, _ buffer: inout [UInt8], _ batch: inout [ATTBearerEvent], limit: Int, logger: Logger) -> PolledRead {
        let count = buffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count > limit {
            logger.warning("dropping an incoming PDU larger than the bearer's \(limit)-byte limit")
            return .more
        }
        if count > 0 {
            batch.append(.pdu(Array(buffer[0..<count])))
            return .more
        }
        if count == 0 { return .ended("the peer closed the connection") }
        switch errno {
        case EINTR: return .more
        case EAGAIN, EWOULDBLOCK: return .drained
        case ECONNRESET: return .ended("the connection was reset")
        case ETIMEDOUT: return .ended("the link timed out")
        default: return .ended("receive failed: \(errnoText())")
        }
    }

    /// One non-blocking `send` of a whole PDU.
    private static func send(_ descriptor: Int32, _ pdu: [UInt8]) -> PolledWrite<ATTBearerError> {
        while true {
            let sent = pdu.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if sent == pdu.count { return .complete }
            if sent >= 0 { return .failed(.io("short send of \(sent) of \(pdu.count) bytes on a SOCK_SEQPACKET socket")) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case ENOBUFS: return .noBuffers
            case EPIPE, ECONNRESET, ENOTCONN: return .failed(.closed(reason: "the peer closed the connection"))
            default: return .failed(.io("send failed: \(errnoText())"))
            }
        }
    }
}
