import Foundation

/// How many times longer than usual tests wait on the wall clock for what no virtual clock can
/// drive: a child process starting, a peer script, a watchdog that turns a hang into a failure.
///
/// Read once from `SMP_TEST_TIME_SCALE` (a number ≥ 1; 1 when unset or not a number). `make
/// sanitize` sets it, because under AddressSanitizer and ThreadSanitizer every process of the run
/// is several times slower. Only bounds scale: what a test asserts never depends on the factor.
public enum TestTimeScale {
    /// The factor (≥ 1).
    public static let factor: Double = {
        guard let text = ProcessInfo.processInfo.environment["SMP_TEST_TIME_SCALE"], let value = Double(text), value.isFinite else {
            return 1
        }
        return max(1, value)
    }()

    /// `limit` times the factor.
    public static func scaled(_ limit: Duration) -> Duration {
        factor == 1 ? limit : limit * factor
    }
}
