import NIOPosix
import SMP
import SMPTestSupport
import SMPUDP
import Testing

/// `EventLoopClock`, the simulator's wall clock in `mcumgr-sim`: sleeps are event-loop timers,
/// optionally turning the loop for their last stretch instead of waiting.
@Suite("Event-loop clock")
struct EventLoopClockTests {
    @Test("a sleep never ends before its deadline, with or without spinning", arguments: [0, 20, 1_000])
    func neverEarly(spinMilliseconds: Int) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clock = EventLoopClock(eventLoop: group.next(), spin: .milliseconds(spinMilliseconds))
        for delay in [1, 5, 30] {
            let deadline = ContinuousClock.now + .milliseconds(delay)
            try await clock.sleep(until: deadline)
            #expect(ContinuousClock.now >= deadline)
        }
        try await group.shutdownGracefully()
    }

    @Test("cancelling a task ends its sleep with CancellationError, spinning or not", .timeLimit(.minutes(1)), arguments: [0, 3_600_000])
    func cancellation(spinMilliseconds: Int) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let clock = EventLoopClock(eventLoop: loop, spin: .milliseconds(spinMilliseconds))
        let sleeper = Task { try await clock.sleep(until: ContinuousClock.now + .seconds(3_600)) }
        // Give the sleep time to be under way (a timer or a spin on the loop), so that the
        // cancellation handler ends it rather than the check at its start; either way it must end.
        try await loop.scheduleTask(in: .milliseconds(50)) {}.futureResult.get()
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        try await group.shutdownGracefully()
    }

    @Test("while a sleep spins, the loop still runs the work queued behind it; cancelling stops the spin", .timeLimit(.minutes(1)))
    func spinningServesTheLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        // The whole sleep spins: the loop turns from its first moment until cancelled.
        let clock = EventLoopClock(eventLoop: loop, spin: .seconds(3_600))
        let slept = Task { () -> Bool in
            do { try await clock.sleep(until: ContinuousClock.now + .seconds(3_600)) } catch { return false }
            return true
        }
        // A timer and a task queued behind the spinning sleep both run while it goes on.
        try await loop.scheduleTask(in: .milliseconds(20)) {}.futureResult.get()
        let served = try await loop.submit { true }.get()
        #expect(served)
        slept.cancel()
        #expect(await slept.value == false)
        // The turns stop with the cancellation: a spin left turning keeps the loop from shutting down.
        #expect(await finishes(within: .seconds(20)) { try? await group.shutdownGracefully() })
    }

    /// Whether `work` finishes within `limit` (times `TestTimeScale`); a hang is reported as false
    /// instead of hanging the test (the work is left running).
    private func finishes(within limit: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        let (outcome, sink) = AsyncStream.makeStream(of: Bool.self)
        Task {
            await work()
            sink.yield(true)
        }
        let timer = Task {
            try? await Task.sleep(for: TestTimeScale.scaled(limit))
            sink.yield(false)
        }
        defer { timer.cancel() }
        return await outcome.first { _ in true } ?? false
    }

    @Test("SMPClock.eventLoop sleeps on the loop's timers and never ends early")
    func smpClock() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clock = SMPClock.eventLoop(group.next(), spin: .microseconds(500))
        let start = clock.now
        try await clock.sleep(until: start + .milliseconds(10))
        #expect(clock.now >= start + .milliseconds(10))
        try await group.shutdownGracefully()
    }
}
