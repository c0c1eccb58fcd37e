import Synchronization

/// Hands every element to any number of `AsyncStream`s: a progress display, a log and a report
/// writer each subscribe and each see every element yielded after they subscribed.
public final class FleetEventBroadcast<Element: Sendable>: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
        var nextID = 0
        var finished = false
    }

    private let state = Mutex(State())

    /// Makes a broadcast without subscribers.
    public init() {}

    /// A new stream of the elements yielded from now on; it ends when the broadcast finishes (at
    /// once if it has). `bufferingPolicy` bounds what a slow consumer holds back.
    public func subscribe(bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let added = state.withLock { s -> Int? in
            guard !s.finished else { return nil }
            s.nextID += 1
            s.subscribers[s.nextID] = continuation
            return s.nextID
        }
        guard let id = added else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `element` to every subscriber. Elements yielded from several tasks reach every
    /// subscriber in the same order (yielding never runs a consumer, so it happens under the lock).
    public func yield(_ element: Element) {
        state.withLock { s in
            for subscriber in s.subscribers.values { subscriber.yield(element) }
        }
    }

    /// Ends every stream; later subscribers get an ended stream.
    public func finish() {
        let subscribers = state.withLock { s -> [AsyncStream<Element>.Continuation] in
            s.finished = true
            defer { s.subscribers.removeAll() }
            return Array(s.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
