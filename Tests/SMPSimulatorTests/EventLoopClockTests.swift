import NIOPosix
import SMP
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

    @Test("cancelling a task ends its sleep with CancellationError, spinning or not", arguments: [0, 3_600_000])
    func cancellation(spinMilliseconds: Int) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clock = EventLoopClock(eventLoop: group.next(), spin: .milliseconds(spinMilliseconds))
        let sleeper = Task { try await clock.sleep(until: ContinuousClock.now + .seconds(3_600)) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        try await group.shutdownGracefully()
    }

    @Test("while a sleep spins, the loop still runs the work queued behind it; cancelling stops the spin")
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
        // The turns stop with the cancellation (a spin left turning would keep the shutdown below from finishing).
        #expect(try await loop.submit { true }.get())
        try await group.shutdownGracefully()
    }

    @Test("a sleep already due returns at once; SMPClock.eventLoop sleeps on the loop")
    func smpClock() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clock = SMPClock.eventLoop(group.next(), spin: .microseconds(500))
        try await EventLoopClock(eventLoop: group.next()).sleep(until: ContinuousClock.now - .seconds(1))
        let start = clock.now
        try await clock.sleep(until: start + .milliseconds(10))
        #expect(clock.now >= start + .milliseconds(10))
        try await group.shutdownGracefully()
    }
}
