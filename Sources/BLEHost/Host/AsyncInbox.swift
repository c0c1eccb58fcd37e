import DequeModule
import NIOConcurrencyHelpers

/// A bounded first-in, first-out hand-over from one producer task to one consumer: the producer
/// waits while `capacity` elements are unconsumed, so a slow consumer slows the producer instead
/// of growing memory. ``finish(with:)`` queues a last element and ends the inbox.
final class AsyncInbox<Element: Sendable>: Sendable {
    let capacity: Int
    private let state: NIOLockedValueBox<State>

    private struct State {
        var queue: Deque<Element> = []
        var finished = false
        var consumer: CheckedContinuation<Element?, Never>?
        var producers: Deque<CheckedContinuation<Void, Never>> = []

        var count: Int { queue.count }
    }

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        self.state = NIOLockedValueBox(State())
    }

    /// Queues `element`, waiting first while the inbox is full; dropped when the inbox is finished.
    func push(_ element: Element) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wait = state.withLockedValue { s -> Bool in
                guard s.count >= capacity, !s.finished else { return false }
                s.producers.append(continuation)
                return true
            }
            if !wait { continuation.resume() }
        }
        deliver(element, last: false)
    }

    /// Queues `last` after everything queued and ends the inbox; later pushes are dropped.
    func finish(with last: Element) {
        deliver(last, last: true)
    }

    /// Whether ``finish(with:)`` was called.
    var isFinished: Bool { state.withLockedValue { $0.finished } }

    private func deliver(_ element: Element, last: Bool) {
        let (handoff, producers) = state.withLockedValue { s -> ((CheckedContinuation<Element?, Never>, Element)?, [CheckedContinuation<Void, Never>]) in
            guard !s.finished else { return (nil, []) }
            s.queue.append(element)
            var producers: [CheckedContinuation<Void, Never>] = []
            if last {
                s.finished = true
                producers = Array(s.producers)
                s.producers = []
            }
            guard let consumer = s.consumer, let first = s.queue.popFirst() else { return (nil, producers) }
            s.consumer = nil
            return ((consumer, first), producers)
        }
        for producer in producers { producer.resume() }
        if let (consumer, first) = handoff { consumer.resume(returning: first) }
    }

    /// The next element, waiting for one; nil once the last element was taken.
    func next() async -> Element? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
            // (ready, element, producer): ready is false when the consumer now waits.
            let (ready, element, producer) = state.withLockedValue { s -> (Bool, Element?, CheckedContinuation<Void, Never>?) in
                if let element = s.queue.popFirst() {
                    return (true, element, s.producers.popFirst())
                }
                if s.finished { return (true, nil, nil) }
                s.consumer = continuation
                return (false, nil, nil)
            }
            guard ready else { return }
            producer?.resume()
            continuation.resume(returning: element)
        }
    }
}
