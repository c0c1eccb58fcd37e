import DequeModule
import NIOConcurrencyHelpers

/// Hands elements from any number of producers (threads or tasks) to one consuming task, first in
/// first out, buffered until read: the per-packet path of a session (transport events, upload
/// answers). Lighter than `AsyncStream` there: specialised where it is used (no generic buffer
/// behind a resilience boundary) and a direct hand-over when the consumer already waits.
///
/// A consumer that runs where the producer yields (on the producer's executor) can take elements
/// with ``deliverDirectly(to:)`` instead: each is then handed to its handler inside `yield`.
///
/// After ``finish()`` the consumer reads what is buffered, then `nil`; later elements are dropped.
/// A cancelled consumer reads `nil` at once, and the queue is finished. With a ``limit``, an
/// element that finds the buffer full is dropped (a flood cannot grow memory without bound).
public final class SingleConsumerQueue<Element: Sendable>: Sendable {
    @usableFromInline
    struct State: Sendable {
        @usableFromInline var buffer: Deque<Element> = []
        @usableFromInline var waiter: UnsafeContinuation<Element?, Never>?
        @usableFromInline var finished = false
        /// Set by ``deliverDirectly(to:)``: elements go to it instead of the buffer.
        @usableFromInline var handler: (@Sendable (Element) -> Void)?
        /// While the buffer is handed to `handler`, new elements queue behind it.
        @usableFromInline var draining = false

        @usableFromInline init() {}
    }

    // A pthread mutex (NIO's), not `Synchronization.Mutex`: the latter's contended hand-over
    // happens inside the kernel (FUTEX_LOCK_PI), where ThreadSanitizer cannot see it.
    @usableFromInline let state = NIOLockedValueBox(State())
    /// The most elements held unread; more are dropped.
    public let limit: Int

    /// Makes an empty queue that holds at most `limit` unread elements.
    public init(limit: Int = .max) {
        self.limit = max(1, limit)
    }

    /// Queues `element`, or hands it straight to the waiting consumer; returns false when it was
    /// dropped (the queue is finished, or holds ``limit`` unread elements).
    @inlinable
    @discardableResult
    public func yield(_ element: Element) -> Bool {
        let (accepted, waiter, handler) = state.withLockedValue {
            s -> (Bool, UnsafeContinuation<Element?, Never>?, (@Sendable (Element) -> Void)?) in
            guard !s.finished else { return (false, nil, nil) }
            if let handler = s.handler, !s.draining { return (true, nil, handler) }
            guard let waiter = s.waiter else {
                guard s.buffer.count < limit else { return (false, nil, nil) }
                s.buffer.append(element)
                return (true, nil, nil)
            }
            s.waiter = nil
            return (true, waiter, nil)
        }
        if let handler {
            handler(element)
        } else {
            waiter?.resume(returning: element)
        }
        return accepted
    }

    /// From now on hands every element to `handler` inside ``yield(_:)``, where the producer
    /// yields it, instead of to ``next(isolation:)``; the elements buffered now go first, in order. A
    /// consumer waiting in ``next(isolation:)`` reads `nil`. For a consumer that runs on the executor the
    /// producer yields on, so that an element is handled without a task switch.
    public func deliverDirectly(to handler: @escaping @Sendable (Element) -> Void) {
        let waiter = state.withLockedValue { s -> UnsafeContinuation<Element?, Never>? in
            s.handler = handler
            s.draining = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
        while let element = state.withLockedValue({ s -> Element? in
            if let element = s.buffer.popFirst() { return element }
            s.draining = false
            return nil
        }) {
            handler(element)
        }
    }

    /// Ends the queue: the consumer reads what is buffered, then `nil`.
    @inlinable
    public func finish() {
        let waiter = state.withLockedValue { s -> UnsafeContinuation<Element?, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next element, waiting for one; `nil` once finished and drained, or when the calling
    /// task is cancelled (which finishes the queue). One consumer at a time. Waits on the caller's
    /// actor (`isolation`), so a consumer isolated to one switches no executor to read.
    @inlinable
    public func next(isolation: isolated (any Actor)? = #isolation) async -> Element? {
        await withTaskCancellationHandler {
            _ = isolation  // captured: the closure then runs on the caller's actor, not the generic executor
            return await withUnsafeContinuation { (continuation: UnsafeContinuation<Element?, Never>) in
                // .some(x): ready now (x nil at the end); nil: the consumer now waits.
                let ready = state.withLockedValue { s -> Element?? in
                    precondition(s.waiter == nil, "SingleConsumerQueue has two consumers")
                    if let element = s.buffer.popFirst() { return .some(element) }
                    if s.finished { return .some(nil) }
                    s.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLockedValue { s -> UnsafeContinuation<Element?, Never>? in
                s.finished = true
                s.buffer = []
                defer { s.waiter = nil }
                return s.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
