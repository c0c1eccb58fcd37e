/// The time source of a session, an upload, an upgrade or a simulated device, and the executor
/// their background tasks run on.
///
/// Every timeout, back-off, latency and reset wait in the package reads `now` and sleeps through
/// one of these, so tests can substitute virtual time (`SMPTestSupport.VirtualRuntime`) and never
/// wait on the wall clock. Production code uses ``continuous``.
public struct SMPClock: Clock {
    /// An instant of an `SMPClock`: the time elapsed since the clock's origin.
    public typealias Instant = SMPInstant

    /// Where tasks started through ``task(priority:_:)`` run; `nil` for Swift's global concurrent executor.
    public let taskExecutor: (any TaskExecutor)?
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration, Duration?) async throws -> Void
    private let resolution: Duration

    /// Wraps any clock measured in `Duration`; instants count from `origin` (by default, the
    /// moment of wrapping).
    public init<C: Clock>(_ clock: C, origin: C.Instant? = nil, taskExecutor: (any TaskExecutor)? = nil) where C.Duration == Duration {
        let origin = origin ?? clock.now
        self.taskExecutor = taskExecutor
        self.elapsed = { origin.duration(to: clock.now) }
        self.sleeper = { offset, tolerance in try await clock.sleep(until: origin.advanced(by: offset), tolerance: tolerance) }
        self.resolution = clock.minimumResolution
    }

    /// Wall-clock time (`ContinuousClock`) with tasks on the global executor.
    public static let continuous = SMPClock(ContinuousClock())

    /// The current instant.
    public var now: SMPInstant { SMPInstant(offset: elapsed()) }

    /// The clock's resolution.
    public var minimumResolution: Duration { resolution }

    /// Suspends until `deadline`; throws `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: SMPInstant, tolerance: Duration? = nil) async throws {
        try await sleeper(deadline.offset, tolerance)
    }

    /// Starts an unstructured task on this clock's executor (the global one in production); like
    /// `Task { }`, the closure inherits the caller's actor isolation.
    @discardableResult
    public func task<Success: Sendable>(
        priority: TaskPriority? = nil, @_inheritActorContext @_implicitSelfCapture _ operation: sending @escaping @isolated(any) () async -> Success
    ) -> Task<Success, Never> {
        Task(executorPreference: taskExecutor, priority: priority, operation: operation)
    }

    /// Starts an unstructured task that may throw, on this clock's executor.
    @discardableResult
    public func throwingTask<Success: Sendable>(
        priority: TaskPriority? = nil, @_inheritActorContext @_implicitSelfCapture _ operation: sending @escaping @isolated(any) () async throws -> Success
    ) -> Task<Success, any Error> {
        Task(executorPreference: taskExecutor, priority: priority, operation: operation)
    }
}

/// An instant of an ``SMPClock``: the time since the clock's origin.
public struct SMPInstant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Time since the clock's origin.
    public var offset: Duration

    /// Makes an instant `offset` after the origin.
    public init(offset: Duration) { self.offset = offset }

    /// The instant `duration` later.
    public func advanced(by duration: Duration) -> SMPInstant { SMPInstant(offset: offset + duration) }

    /// The time from this instant to `other`.
    public func duration(to other: SMPInstant) -> Duration { other.offset - offset }

    /// Whether `lhs` comes first.
    public static func < (lhs: SMPInstant, rhs: SMPInstant) -> Bool { lhs.offset < rhs.offset }

    /// The instant `rhs` after `lhs`.
    public static func + (lhs: SMPInstant, rhs: Duration) -> SMPInstant { lhs.advanced(by: rhs) }

    /// The instant `rhs` before `lhs`.
    public static func - (lhs: SMPInstant, rhs: Duration) -> SMPInstant { lhs.advanced(by: .zero - rhs) }

    /// The time between two instants.
    public static func - (lhs: SMPInstant, rhs: SMPInstant) -> Duration { rhs.duration(to: lhs) }

    /// The offset, e.g. `12.5 seconds`.
    public var description: String { "\(offset)" }
}

extension Duration {
    /// The duration in seconds, as a floating-point number (for rates and printing).
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
