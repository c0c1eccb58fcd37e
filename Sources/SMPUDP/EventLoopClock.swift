import NIOCore
import NIOPosix
import SMP
import Synchronization

/// Wall-clock time whose sleeps are timers of a SwiftNIO event loop.
///
/// Swift's default executor on Linux runs every delayed task through a Dispatch timer on a
/// thread of its own, which then hands the task to the executor: with the event loop installed
/// as the global executor (`UDPTransport.runConcurrencyOnOneEventLoopThread()`), each sleep
/// costs two thread wake-ups and ends about half a millisecond late here. An event loop's own
/// timers (a timerfd on Linux) end within microseconds, on the thread that sends the answer.
public struct EventLoopClock: Clock {
    /// The loop whose timers the sleeps use.
    public let eventLoop: any EventLoop
    /// How long before each deadline the sleep stops waiting on a timer and keeps the loop
    /// turning instead (serving its sockets and tasks between checks of the time): zero, or
    /// enough to cover how late the machine wakes from idle. Costs CPU while it spins.
    public let spin: Duration

    /// Makes a clock whose sleeps are timers of `eventLoop`, turning the loop for the last `spin`
    /// of each sleep instead of waiting (see ``spin``).
    public init(eventLoop: any EventLoop, spin: Duration = .zero) {
        self.eventLoop = eventLoop
        self.spin = max(spin, .zero)
    }

    /// The current instant (the continuous clock's).
    public var now: ContinuousClock.Instant { ContinuousClock.now }

    /// One nanosecond, the timers' resolution.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Suspends until `deadline` (the tolerance is not needed: the timers are not coalesced);
    /// throws `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let delay = ContinuousClock.now.duration(to: deadline)
        guard delay > .zero else { return }
        let loop = eventLoop
        let due = NIODeadline.now() + Self.timeAmount(delay)
        let wake = due - Self.timeAmount(spin)
        let done = loop.makePromise(of: Void.self)
        let cancelled = CancellationFlag()
        let timer = loop.scheduleTask(deadline: wake) { Self.turn(loop, until: due, completing: done, unless: cancelled) }
        timer.futureResult.cascadeFailure(to: done)
        do {
            try await withTaskCancellationHandler {
                try await done.futureResult.get()
            } onCancel: {
                cancelled.set()
                timer.cancel()
                done.fail(CancellationError())
            }
        } catch {
            throw CancellationError()
        }
    }

    /// Re-enqueues itself on `loop` until `due` or a cancellation: the loop polls its sockets
    /// between turns, so nothing waits behind the spin, and the deadline is met within one turn.
    private static func turn(
        _ loop: any EventLoop, until due: NIODeadline, completing done: EventLoopPromise<Void>, unless cancelled: CancellationFlag
    ) {
        if cancelled.isSet { return }
        if NIODeadline.now() >= due {
            done.succeed()
        } else {
            loop.execute { turn(loop, until: due, completing: done, unless: cancelled) }
        }
    }

    /// `duration` in whole nanoseconds, rounded up (a sleep never ends early).
    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + (attoseconds + 999_999_999) / 1_000_000_000)
    }
}

/// Set once when a sleeping task is cancelled, so its spin stops turning.
private final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var isSet: Bool { flag.load(ordering: .acquiring) }

    func set() { flag.store(true, ordering: .releasing) }
}

extension SMPClock {
    /// Wall-clock time with sleeps on `eventLoop`'s timers (see ``EventLoopClock``): for a program
    /// that runs Swift concurrency on that loop, such as a simulator whose link latency must be exact.
    public static func eventLoop(_ eventLoop: any EventLoop, spin: Duration = .zero) -> SMPClock {
        SMPClock(EventLoopClock(eventLoop: eventLoop, spin: spin))
    }

    /// `SMPClock.eventLoop(_:)` on a loop of SwiftNIO's singleton group, the one UDP transports use by
    /// default (the only one after `UDPTransport.runConcurrencyOnOneEventLoopThread()`).
    public static func singletonEventLoop(spin: Duration = .zero) -> SMPClock {
        .eventLoop(MultiThreadedEventLoopGroup.singleton.next(), spin: spin)
    }
}
