import SMP
import SMPTestSupport
import Testing

@Suite("Virtual runtime")
struct VirtualRuntimeTests {
    @Test("sleepers wake in deadline order, and virtual time ends at the last deadline")
    func deadlineOrder() async throws {
        let runtime = VirtualRuntime()
        let order = try await runtime.run { clock in await Self.sleepersWakeOrder(on: clock) }
        #expect(order == [10, 20, 30, 3600])
        #expect(runtime.elapsed == .seconds(3600))
    }

    @Test("time does not move while work is runnable")
    func timeWaitsForWork() async throws {
        let runtime = VirtualRuntime()
        let seen = try await runtime.run { clock -> Duration in
            let sleeper = clock.task { try? await clock.sleep(for: .milliseconds(1)) }
            // Plenty of runnable work before the sleeper is due: it all runs at virtual time zero.
            var total = 0
            for i in 0..<10_000 {
                total &+= i
                await Task.yield()
            }
            let now = clock.now.offset
            await sleeper.value
            return total > 0 ? now : .seconds(-1)
        }
        #expect(seen == .zero)
    }

    @Test("a cancelled sleeper wakes with CancellationError and time does not jump to its deadline")
    func cancellation() async throws {
        let runtime = VirtualRuntime()
        let (cancelled, now) = try await runtime.run { clock -> (Bool, Duration) in
            let long = clock.throwingTask { try await clock.sleep(for: .seconds(1000)) }
            try await clock.sleep(for: .seconds(1))
            long.cancel()
            let result = await long.result
            let wasCancelled: Bool
            if case .failure(let error) = result { wasCancelled = error is CancellationError } else { wasCancelled = false }
            return (wasCancelled, clock.now.offset)
        }
        #expect(cancelled)
        #expect(now == .seconds(1))
    }

    @Test("runOnCallingThread runs the body on virtual time and returns its result")
    func callingThread() {
        let runtime = VirtualRuntime()
        let order = runtime.runOnCallingThread { clock -> [Int] in
            #expect(VirtualRuntime.current === runtime)
            return await Self.sleepersWakeOrder(on: clock)
        }
        #expect(order == [10, 20, 30, 3600])
        #expect(runtime.elapsed == .seconds(3600))
    }

    @Test("runOnCallingThread rethrows the body's error, and runs what the body left runnable before it returns")
    func callingThreadDrains() {
        struct Failed: Error {}
        let log = WakeLog()
        let outcome = Result { () throws(Failed) -> Void in
            try VirtualRuntime().runOnCallingThread { clock throws(Failed) in
                // Not awaited: it runs after the body returned, before runOnCallingThread does.
                _ = clock.task {
                    await Task.yield()
                    await log.append(1)
                }
                throw Failed()
            }
        }
        #expect(throws: Failed.self) { try outcome.get() }
        let entries = VirtualRuntime().runOnCallingThread { _ in await log.entries }
        #expect(entries == [1])
    }

    @Test("manual advance wakes only the sleepers due")
    func manualAdvance() async throws {
        let clock = VirtualClock()
        let log = WakeLog()
        let task = Task {
            try await clock.sleep(until: SMPInstant(offset: .seconds(5)))
            await log.append(5)
        }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await task.value
        #expect(await log.entries == [5])
        #expect(clock.now.offset == .seconds(5))
    }

    /// Starts four sleepers (30, 10, 3 600 and 20 s) on `clock` and returns the order they woke in.
    static func sleepersWakeOrder(on clock: SMPClock) async -> [Int] {
        let log = WakeLog()
        let tasks = [30, 10, 3600, 20].map { seconds in
            clock.task {
                try? await clock.sleep(for: .seconds(seconds))
                await log.append(seconds)
            }
        }
        for task in tasks { await task.value }
        return await log.entries
    }
}

private actor WakeLog {
    var entries: [Int] = []
    func append(_ value: Int) { entries.append(value) }
}
