/// What a transport reports to its session, in arrival order: received packets and link changes.
/// Its threads or tasks yield through the ``Continuation``; the session is the one consumer.
/// Shaped like `AsyncStream` (``makeStream()``, `yield`, `finish`), on a ``SingleConsumerQueue``,
/// which costs less per packet.
public struct SMPTransportEvents: AsyncSequence, Sendable {
    /// One event.
    public typealias Element = SMPTransportEvent

    let queue: SingleConsumerQueue<SMPTransportEvent>

    /// A new sequence and the continuation that feeds it.
    public static func makeStream() -> (stream: SMPTransportEvents, continuation: Continuation) {
        let queue = SingleConsumerQueue<SMPTransportEvent>()
        return (SMPTransportEvents(queue: queue), Continuation(queue: queue))
    }

    /// The transport's side: yields events and finishes the sequence.
    public struct Continuation: Sendable {
        let queue: SingleConsumerQueue<SMPTransportEvent>

        /// Delivers `event` after those before it (dropped once finished).
        public func yield(_ event: SMPTransportEvent) {
            queue.yield(event)
        }

        /// Ends the sequence after the events already yielded.
        public func finish() {
            queue.finish()
        }
    }

    /// The session's side.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: SingleConsumerQueue<SMPTransportEvent>

        /// The next event; `nil` once the transport finished, or when the reading task is cancelled.
        public mutating func next() async -> SMPTransportEvent? {
            await queue.next()
        }
    }

    /// Hands every later event (and those not yet read, first) to `handler` where the transport
    /// yields it, instead of through iteration: for a session on the executor the transport
    /// yields on (``SMPExecutorBoundTransport``).
    public func deliverDirectly(to handler: @escaping @Sendable (SMPTransportEvent) -> Void) {
        queue.deliverDirectly(to: handler)
    }

    /// Iterates the events (one consumer).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(queue: queue)
    }
}
