import GATT
import Synchronization

/// A bearer that a test cuts the way a host does when it handles Disconnection Complete: sends
/// fail at once with `.closed`, while the `.closed` event on `inbound` has not arrived yet.
final class SeverableBearer: ATTBearer {
    private let inner: any ATTBearer
    private let severedReason = Mutex<String?>(nil)

    init(_ inner: any ATTBearer) {
        self.inner = inner
    }

    var inbound: AsyncStream<ATTBearerEvent> { inner.inbound }
    var maximumPDUSize: Int { inner.maximumPDUSize }

    /// From now on every send fails with `reason`; `inbound` stays open.
    func sever(reason: String) {
        severedReason.withLock { $0 = reason }
    }

    func send(_ pdu: [UInt8]) async throws(ATTBearerError) {
        if let reason = severedReason.withLock({ $0 }) { throw .closed(reason: reason) }
        try await inner.send(pdu)
    }

    func close() async {
        await inner.close()
    }
}
