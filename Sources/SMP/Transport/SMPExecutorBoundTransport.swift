/// A transport that does its work on one serial executor (an event loop) and can send from there
/// without suspending.
///
/// A session over it runs on that executor (``SMPClient`` adopts ``boundExecutor``): each packet
/// is handled where it arrives, and a request that an answer makes ready (the next upload chunk)
/// leaves before control returns to the event loop, with no task switch on the way. The
/// transport keeps this contract while it offers an executor:
/// - every event of ``SMPTransport/events`` is yielded on ``boundExecutor``;
/// - ``sendWithoutSuspending(_:)`` and ``currentMaximumPacketSize`` are safe to use there.
public protocol SMPExecutorBoundTransport: SMPTransport {
    /// The executor the transport yields its events on and sends from, or `nil` when it cannot
    /// offer one (a session over it then runs on its own executor, as over any transport). The
    /// same for the transport's whole life.
    var boundExecutor: (any SerialExecutor)? { get }
    /// The largest SMP packet the transport sends now, read without suspending.
    var currentMaximumPacketSize: Int { get }
    /// Sends one whole SMP packet without suspending; call only on ``boundExecutor``.
    func sendWithoutSuspending(_ packet: [UInt8]) throws(SMPTransportError)
}
