import Foundation
import SMP
import NIOConcurrencyHelpers

/// Deterministic time for tests, as swift-nio's `EmbeddedEventLoop` gives channels: one serial
/// executor runs every task of the code under test, and a virtual clock advances only when that
/// executor has nothing left to run, straight to the earliest sleeper's deadline.
///
/// Timeouts, back-offs, link latencies and reset waits therefore take no wall-clock time and fire
/// in the same order on every machine, however loaded. Everything under test must take its time
/// and start its tasks through ``clock`` (an `SMPClock` with this runtime's executor); a test that
/// waits on real I/O (a socket, a child process) should use `SMPClock.continuous` instead.
///
/// ```swift
/// let runtime = VirtualRuntime()
/// try await runtime.run { clock in
///     let client = SMPClient(transport: transport, clock: clock)
///     ...
/// }
/// ```
public final class VirtualRuntime: TaskExecutor, @unchecked Sendable {
    /// The virtual clock, with this runtime as its task executor (instants count from virtual zero).
    public var clock: SMPClock { SMPClock(virtualClock, origin: SMPInstant(offset: .zero), taskExecutor: self) }
    /// The clock underneath ``clock``, for advancing by hand.
    public let virtualClock = VirtualClock()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var running = false
    private var finished = false
    /// Set when the body of ``runOnCallingThread(_:)`` returned: the loop ends once no job is queued.
    private var stopsWhenIdle = false

    /// Makes a runtime; its thread starts with ``run(_:)`` (``runOnCallingThread(_:)`` uses the caller's).
    public init() {}

    /// The runtime the current task runs under, if any (set by ``run(_:)``); test fixtures take
    /// their clock from it.
    @TaskLocal public static var current: VirtualRuntime?

    /// The clock of the runtime the current task runs under, else wall-clock time.
    public static var currentClock: SMPClock { current?.clock ?? .continuous }

    /// Runs `body` with every task it starts (through ``clock``) on this runtime's executor, and
    /// returns its result. Virtual time starts at zero.
    public func run<T>(_ body: (SMPClock) async throws -> T) async throws -> T {
        startThread()
        let clock = self.clock
        defer { finish() }
        return try await Self.$current.withValue(self) {
            try await withTaskExecutorPreference(self) {
                try await body(clock)
            }
        }
    }

    /// Runs `body` as ``run(_:)`` does, from synchronous code: the calling thread runs this runtime's
    /// executor itself until `body` has returned and the jobs queued by then (and by those) have
    /// run, then returns `body`'s result. No thread is started and no semaphore waited on, so a
    /// caller that runs many short bodies one after another (a libFuzzer target's
    /// `LLVMFuzzerTestOneInput`) pays for neither. Virtual time stops when `body` returns; work
    /// arriving after this returns goes to the global pool, as after ``run(_:)``.
    ///
    /// Blocks the calling thread until then: meant for a thread outside Swift's pool (libFuzzer's);
    /// async code uses ``run(_:)``. Use each runtime for one run.
    @available(*, noasync, message: "blocks the calling thread; use run(_:) from async code")
    public func runOnCallingThread<T: Sendable, Failure: Error>(
        _ body: @escaping @Sendable (SMPClock) async throws(Failure) -> T
    ) throws(Failure) -> T {
        condition.lock()
        precondition(!running, "a VirtualRuntime runs once")
        running = true
        condition.unlock()
        let clock = self.clock
        let outcome = NIOLockedValueBox<Result<T, Failure>?>(nil)
        Task(executorPreference: self) { [self] in
            let result = await Self.$current.withValue(self) { () async -> Result<T, Failure> in
                do throws(Failure) {
                    return .success(try await body(clock))
                } catch {
                    return .failure(error)
                }
            }
            outcome.withLockedValue { $0 = result }
            stopWhenIdle()
        }
        loop()
        guard let result = outcome.withLockedValue({ $0 }) else { fatalError("the runtime stopped before its body returned") }
        return try result.get()
    }

    /// Time elapsed on the virtual clock.
    public var elapsed: Duration { virtualClock.now.offset }

    /// Queues a job (called by the Swift runtime).
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        if finished {
            condition.unlock()
            // Work arriving after the test ended goes to the global pool.
            unowned.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
            return
        }
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    private func startThread() {
        condition.lock()
        defer { condition.unlock() }
        guard !running else { return }
        running = true
        let thread = Thread { [self] in loop() }
        thread.name = "VirtualRuntime"
        thread.start()
    }

    private func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    private func stopWhenIdle() {
        condition.lock()
        stopsWhenIdle = true
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            if let job = jobs.first {
                jobs.removeFirst()
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
                continue
            }
            if finished {
                condition.unlock()
                return
            }
            if stopsWhenIdle {
                finished = true
                condition.unlock()
                return
            }
            condition.unlock()
            // Nothing runnable: time moves on to the next sleeper, whose wake-up queues a job.
            if virtualClock.advanceToNextDeadline() { continue }
            condition.lock()
            if jobs.isEmpty && !finished {
                // Nothing to run and nobody asleep: wait for work from outside (another thread).
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
            }
            condition.unlock()
        }
    }
}

/// A clock whose time moves only when told to: by ``advance(by:)``, or by a ``VirtualRuntime``
/// when its executor is idle. Sleepers with the same deadline wake in the order they slept.
public final class VirtualClock: Clock, Sendable {
    /// An instant of virtual time (time since the clock was made).
    public typealias Instant = SMPInstant

    private struct Sleeper {
        let id: UInt64
        let deadline: SMPInstant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = SMPInstant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        /// Sleepers cancelled before they were registered.
        var cancelledEarly: Set<UInt64> = []
    }

    // A pthread mutex (not `Synchronization.Mutex`, whose contended hand-over ThreadSanitizer
    // cannot see: `make sanitize` reported the cancellation handler and the clock's advance as a race).
    private let state = NIOLockedValueBox(State())

    /// Makes a clock at time zero.
    public init() {}

    /// The current virtual instant.
    public var now: SMPInstant { state.withLockedValue { $0.now } }

    /// Virtual time has no resolution limit.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// How many tasks are asleep on this clock.
    public var sleeperCount: Int { state.withLockedValue { $0.sleepers.count } }

    /// Suspends until virtual time reaches `deadline` (returns at once if it has).
    public func sleep(until deadline: SMPInstant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLockedValue { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Start { case sleep, wake, cancel }
                let start = state.withLockedValue { s -> Start in
                    if s.cancelledEarly.remove(id) != nil { return .cancel }
                    if deadline <= s.now { return .wake }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .sleep
                }
                switch start {
                case .sleep: break
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let cancelled = state.withLockedValue { s -> Sleeper? in
                guard let index = s.sleepers.firstIndex(where: { $0.id == id }) else {
                    s.cancelledEarly.insert(id)
                    return nil
                }
                return s.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time on by `duration`, waking every sleeper whose deadline is passed, in deadline order.
    public func advance(by duration: Duration) {
        let target = now + duration
        while advanceToNextDeadline(notAfter: target) {}
        state.withLockedValue { s in s.now = max(s.now, target) }
    }

    /// Moves time to the earliest deadline (if any, and not after `limit`) and wakes the sleepers
    /// due then; returns whether any woke.
    @discardableResult
    public func advanceToNextDeadline(notAfter limit: SMPInstant? = nil) -> Bool {
        let due = state.withLockedValue { s -> [Sleeper] in
            guard let earliest = s.sleepers.map(\.deadline).min() else { return [] }
            if let limit, earliest > limit { return [] }
            s.now = max(s.now, earliest)
            let now = s.now
            let due = s.sleepers.filter { $0.deadline <= now }
            s.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
        return !due.isEmpty
    }
}
