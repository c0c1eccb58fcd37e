import McuMgr

/// How a fleet upgrade runs: the upgrade of each device, how many at once, retries, and when to stop.
public struct FleetConfiguration: Sendable {
    /// Each device's firmware upgrade (mode, pipeline, timeouts).
    public var upgrade: FirmwareUpgradeConfiguration
    /// How many devices at once.
    public var concurrency: FleetConcurrency
    /// How many times a device whose attempt failed for a reason that may pass is tried again
    /// (see ``FleetFailure/isRetriable``).
    public var retries: Int
    /// The wait before the first retry; it doubles for each further retry of the same device.
    public var retryBackOff: Duration
    /// The longest wait between retries.
    public var maximumRetryBackOff: Duration
    /// After this many devices failed (after their retries), no further device is started; `nil` for no limit.
    public var maximumFailures: Int?
    /// Upgrade the first this many devices first and check that they came back healthy (running the
    /// new images, confirmed when the mode confirms) before starting the rest; 0 for no canaries.
    /// If any canary fails, no other device is started.
    public var canaryCount: Int
    /// How long a canary's health check may take (it resends through a lossy link until then).
    public var healthCheckTimeout: Duration

    /// Makes a configuration; by default no retries, no failure limit and no canaries.
    public init(
        upgrade: FirmwareUpgradeConfiguration = FirmwareUpgradeConfiguration(), concurrency: FleetConcurrency = FleetConcurrency(),
        retries: Int = 0, retryBackOff: Duration = .seconds(2), maximumRetryBackOff: Duration = .seconds(60),
        maximumFailures: Int? = nil, canaryCount: Int = 0, healthCheckTimeout: Duration = .seconds(30)
    ) {
        self.upgrade = upgrade
        self.concurrency = concurrency
        self.retries = retries
        self.retryBackOff = retryBackOff
        self.maximumRetryBackOff = maximumRetryBackOff
        self.maximumFailures = maximumFailures
        self.canaryCount = canaryCount
        self.healthCheckTimeout = healthCheckTimeout
    }

    /// The wait before trying a device again after its attempt number `attempt` (1 for the first)
    /// failed with `failure`; nil when it is not tried again: the failure will not pass
    /// (``FleetFailure/isRetriable``) or the ``retries`` are used up. The upgrade and its dry run
    /// both go by it.
    public func retryDelay(after failure: FleetFailure, attempt: Int) -> Duration? {
        guard failure.isRetriable, attempt <= retries else { return nil }
        return backOff(beforeRetry: attempt)
    }

    /// The wait before retry number `retry` (1 for the first).
    public func backOff(beforeRetry retry: Int) -> Duration {
        var delay = retryBackOff
        for _ in 1..<max(retry, 1) {
            delay = min(delay * 2, maximumRetryBackOff)
        }
        return min(delay, maximumRetryBackOff)
    }

    /// Refuses limits that cannot work and images or an upgrade configuration the upgrade would refuse.
    func validate(devices: [FleetDevice], images: [FirmwareUpgradeImage]) throws(FleetConfigurationError) {
        guard !devices.isEmpty else { throw .invalid("the fleet has no device") }
        if let problem = concurrency.problem { throw .invalid(problem) }
        guard retries >= 0 else { throw .invalid("retries cannot be negative") }
        guard retryBackOff >= .zero, maximumRetryBackOff >= .zero else { throw .invalid("retry back-offs cannot be negative") }
        if let maximumFailures, maximumFailures < 1 { throw .invalid("the failure limit must be at least 1, not \(maximumFailures)") }
        guard canaryCount >= 0 else { throw .invalid("the canary count cannot be negative") }
        guard healthCheckTimeout > .zero else { throw .invalid("the health check timeout must be more than 0") }
        do {
            try FirmwareUpgradeManager.validate(images: images, configuration: upgrade)
        } catch {
            throw .upgrade(error)
        }
    }
}

/// Why a fleet upgrade cannot start. Nothing was sent to any device.
public enum FleetConfigurationError: Error, Sendable, CustomStringConvertible {
    /// A fleet limit or policy cannot work.
    case invalid(String)
    /// The images or the upgrade configuration are refused as a single upgrade refuses them.
    case upgrade(FirmwareUpgradeError)

    /// What is wrong.
    public var description: String {
        switch self {
        case .invalid(let why): return why
        case .upgrade(let error): return error.description
        }
    }
}
