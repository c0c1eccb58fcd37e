/// The time source of an ``LEHost``: any clock measured in `Duration`, and the executor the host's
/// background tasks (its HCI reader and command timers) run on.
///
/// BLEHost knows nothing of SMP, so it does not take `SMPClock`; an `SMPClock` is a `Clock` of
/// `Duration`, so callers above pass `HostClock(smpClock, taskExecutor: smpClock.taskExecutor)`.
/// Tests over real sockets to bumble use ``continuous`` with generous timeouts.
public struct HostClock: Sendable {
    /// Where the host's tasks run; nil for Swift's global concurrent executor.
    public let taskExecutor: (any TaskExecutor)?
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// Wraps `clock`; the host's tasks run on `taskExecutor` (the global executor when nil).
    public init<C: Clock>(_ clock: C, taskExecutor: (any TaskExecutor)? = nil) where C.Duration == Duration {
        self.taskExecutor = taskExecutor
        self.sleeper = { duration in try await clock.sleep(for: duration) }
    }

    /// Wall-clock time with tasks on the global executor.
    public static var continuous: HostClock { HostClock(ContinuousClock()) }

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
