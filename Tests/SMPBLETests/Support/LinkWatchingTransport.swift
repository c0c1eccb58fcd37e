import SMP

/// A transport that passes everything through to `inner` and also hands its link changes
/// (`.connected`, `.disconnected`) to the test, so that a test waits for the transport to notice a
/// disconnect instead of polling `connect()` on the wall clock.
///
/// The session iterates ``events`` (every event of `inner`, in order); the test iterates
/// ``linkChanges``. Both finish when `inner`'s events do (on `close()`).
final class LinkWatchingTransport<Inner: SMPTransport>: SMPTransport {
    let inner: Inner
    let events: SMPTransportEvents
    /// The link changes `inner` reports, in order.
    let linkChanges: SMPTransportEvents

    init(_ inner: Inner) {
        self.inner = inner
        let (events, eventSink) = SMPTransportEvents.makeStream()
        let (changes, changeSink) = SMPTransportEvents.makeStream()
        self.events = events
        self.linkChanges = changes
        Task {
            for await event in inner.events {
                if case .received = event {} else { changeSink.yield(event) }
                eventSink.yield(event)
            }
            eventSink.finish()
            changeSink.finish()
        }
    }

    var maximumPacketSize: Int { get async { await inner.maximumPacketSize } }
    var linkUnit: Int { get async { await inner.linkUnit } }
    func connect() async throws(SMPTransportError) { try await inner.connect() }
    func send(_ packet: [UInt8]) async throws(SMPTransportError) { try await inner.send(packet) }
    func close() async { await inner.close() }
    func setDeviceBufferSize(_ size: Int?) async { await inner.setDeviceBufferSize(size) }
}
