/// The time source of a ``GATTClient``: any clock measured in `Duration`, and the executor the
/// client's background tasks (its receiver and transaction timers) run on.
///
/// GATT knows nothing of SMP, so it does not take `SMPClock`; an `SMPClock` is a `Clock` of
/// `Duration`, so SMP code passes `GATTClock(smpClock, taskExecutor: smpClock.taskExecutor)` and a
/// virtual-time test runtime drives GATT timeouts exactly as it drives the session's.
public struct GATTClock: Sendable {
    /// Where tasks started by the client run; nil for Swift's global concurrent executor.
    public let taskExecutor: (any TaskExecutor)?
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// Wraps `clock`; the client's tasks run on `taskExecutor` (the global executor when nil).
    public init<C: Clock>(_ clock: C, taskExecutor: (any TaskExecutor)? = nil) where C.Duration == Duration {
        self.taskExecutor = taskExecutor
        self.sleeper = { duration in try await clock.sleep(for: duration) }
    }

    /// Wall-clock time with tasks on the global executor.
    public static var continuous: GATTClock { GATTClock(ContinuousClock()) }

    /// Suspends for `duration`; throws `CancellationError` when the task is cancelled first.
    public func sleep(for duration: Duration) async throws {
        try await sleeper(duration)
    }

    /// Starts an unstructured task on the clock's executor.
    @discardableResult
    public func task(_ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
        Task(executorPreference: taskExecutor, operation: operation)
    }
}
