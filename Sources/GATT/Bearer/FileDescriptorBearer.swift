import Glibc
import Logging
import POSIXIO

/// An ``ATTBearer`` over a `SOCK_SEQPACKET` file descriptor: a BlueZ L2CAP LE socket on the ATT
/// channel, or one end of `socketpair(AF_UNIX, SOCK_SEQPACKET)`.
///
/// One `recv` is one PDU and one `send` is one PDU; nothing is coalesced. The descriptor runs on a
/// `PolledDescriptor` (POSIXIO) (a thread of its own). Flow control works both ways: when a send
/// would block (`EAGAIN`, `ENOBUFS`) the PDU waits, in call order, until the socket takes it, and
/// nothing is dropped; and the bearer reads ahead at most ``readAhead`` PDUs that `inbound`'s
/// consumer has not taken, so a slow consumer makes the peer's sends wait instead of growing memory.
/// The bearer owns the descriptor and closes it when the bearer closes.
public final class FileDescriptorBearer: ATTBearer {
    /// PDUs from the peer, then `.closed` once.
    public let inbound: AsyncStream<ATTBearerEvent>
    /// The largest PDU sent or received (a larger incoming PDU is dropped with a log line).
    public let maximumPDUSize: Int
    /// How many received PDUs wait for the consumer before the bearer stops reading.
    public static let readAhead = 64

    private let core: PolledDescriptor

    /// Takes ownership of `descriptor` (a connected `SOCK_SEQPACKET` socket), makes it non-blocking
    /// and starts reading. `maximumPDUSize` is the ATT bearer's PDU limit (an L2CAP MTU; 517 fits any ATT MTU).
    public convenience init(adopting descriptor: Int32, maximumPDUSize: Int = 517, logger: Logger = Logger(label: "att-bearer")) throws(ATTBearerError) {
        try self.init(adopting: descriptor, connecting: false, maximumPDUSize: maximumPDUSize, logger: logger)
    }

    /// Takes ownership of `descriptor`, a `SOCK_SEQPACKET` socket whose non-blocking `connect` is
    /// in progress when `connecting`: nothing is read or sent until it completes
    /// (``waitUntilConnected()``).
    package init(adopting descriptor: Int32, connecting: Bool, maximumPDUSize: Int = 517, logger: Logger = Logger(label: "att-bearer")) throws(ATTBearerError) {
        let limit = max(1, maximumPDUSize)
        do {
            // One byte more than the limit: a longer PDU arrives cut to limit + 1 bytes, and is dropped.
            core = try PolledDescriptor(
                adopting: descriptor, kind: .datagrams, readSize: limit + 1, readAhead: Self.readAhead, connecting: connecting,
                threadName: "att-bearer-\(descriptor)")
        } catch {
            throw .io("cannot serve descriptor \(descriptor): \(error)")
        }
        self.maximumPDUSize = limit
        let core = self.core
        self.inbound = AsyncStream(unfolding: { await Self.nextEvent(from: core, limit: limit, logger: logger) })
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
        do {
            try await core.write(pdu)
        } catch {
            switch error {
            case .ended(let end):
                throw .closed(reason: Self.reason(end))
            case .refused(let failure) where [EPIPE, ECONNRESET, ENOTCONN].contains(failure.errno):
                throw .closed(reason: "the peer closed the connection")
            case .refused(let failure):
                throw .io("send failed: \(errnoText(failure.errno))")
            case .cancelled:
                throw .closed(reason: "the send was cancelled")
            }
        }
    }

    /// Waits until the connection started before adoption (`connecting`) is up; throws why it is
    /// not (the socket's error from `connect`, or ``DescriptorEnd/closed`` when the bearer was closed first).
    package func waitUntilConnected() async throws(DescriptorEnd) {
        try await core.waitUntilConnected()
    }

    /// Closes the descriptor; `inbound` ends with `.closed` (after PDUs already read), and queued sends fail.
    public func close() async {
        await core.close()
    }

    /// The next PDU, dropping (with a log line) any over `limit`; then `.closed` once, then nil.
    private static func nextEvent(from core: PolledDescriptor, limit: Int, logger: Logger) async -> ATTBearerEvent? {
        while let read = await core.read() {
            switch read {
            case .bytes(let pdu) where pdu.count > limit:
                logger.warning("dropping an incoming PDU larger than the bearer's \(limit)-byte limit")
            case .bytes(let pdu):
                return .pdu(pdu)
            case .end(let end):
                logger.debug("ATT bearer: \(reason(end))")
                return .closed(reason: reason(end))
            }
        }
        return nil
    }

    /// Why the connection ended, in the bearer's words.
    private static func reason(_ end: DescriptorEnd) -> String {
        switch end {
        case .closed: return "the bearer was closed"
        case .peerClosed: return "the peer closed the connection"
        case .failed(let failure) where failure.errno == ECONNRESET: return "the connection was reset"
        case .failed(let failure) where failure.errno == ETIMEDOUT: return "the link timed out"
        case .failed(let failure) where failure.call == "recv": return "receive failed: \(errnoText(failure.errno))"
        case .failed(let failure): return failure.description
        }
    }
}
