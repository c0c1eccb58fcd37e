import Synchronization

/// An in-process ``ATTBearer``: two ends made together by ``pair(maximumPDUSize:)``; what one
/// end sends arrives at the other as one PDU, in order.
///
/// For running a GATT client against an in-process server on virtual time, where a socket's
/// thread would let time race ahead. Closing either end closes both.
public final class MemoryATTBearer: ATTBearer {
    /// PDUs from the other end, then `.closed` once.
    public let inbound: AsyncStream<ATTBearerEvent>
    /// The largest PDU either end sends.
    public let maximumPDUSize: Int

    private let sink: AsyncStream<ATTBearerEvent>.Continuation
    private let link: Link
    private let side: Int

    /// State shared by both ends.
    private final class Link: Sendable {
        let closedReason = Mutex<String?>(nil)
        let sinks: Mutex<[AsyncStream<ATTBearerEvent>.Continuation]> = Mutex([])
    }

    private init(link: Link, side: Int, maximumPDUSize: Int) {
        self.link = link
        self.side = side
        self.maximumPDUSize = maximumPDUSize
        (inbound, sink) = AsyncStream.makeStream(of: ATTBearerEvent.self)
        link.sinks.withLock { $0.append(sink) }
    }

    /// Makes two connected ends.
    public static func pair(maximumPDUSize: Int = 517) -> (MemoryATTBearer, MemoryATTBearer) {
        let link = Link()
        return (
            MemoryATTBearer(link: link, side: 0, maximumPDUSize: maximumPDUSize),
            MemoryATTBearer(link: link, side: 1, maximumPDUSize: maximumPDUSize)
        )
    }

    /// Hands the PDU to the other end.
    public func send(_ pdu: [UInt8]) async throws(ATTBearerError) {
        guard pdu.count <= maximumPDUSize else { throw .pduTooLarge(size: pdu.count, limit: maximumPDUSize) }
        let result: Result<Void, ATTBearerError> = link.closedReason.withLock { reason in
            if let reason { return .failure(.closed(reason: reason)) }
            _ = link.sinks.withLock { $0[1 - side].yield(.pdu(pdu)) }
            return .success(())
        }
        try result.get()
    }

    /// Closes both ends; each delivers `.closed`.
    public func close() async {
        disconnect(reason: "the bearer was closed")
    }

    /// Closes both ends with `reason` (a link loss, as a peer would see it).
    public func disconnect(reason: String) {
        let first = link.closedReason.withLock { current -> Bool in
            guard current == nil else { return false }
            current = reason
            return true
        }
        guard first else { return }
        for sink in link.sinks.withLock({ $0 }) as [AsyncStream<ATTBearerEvent>.Continuation] {
            sink.yield(.closed(reason: reason))
            sink.finish()
        }
    }
}
