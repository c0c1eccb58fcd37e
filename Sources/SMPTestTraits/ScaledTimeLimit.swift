import SMPTestSupport
import Testing

extension Trait where Self == TimeLimitTrait {
    /// `.timeLimit(.minutes(minutes))` times ``TestTimeScale`` (in whole minutes, rounded up): a
    /// hang bound on the wall clock, which `make sanitize` stretches with the tests' other bounds.
    public static func scaledTimeLimit(minutes: Int) -> Self {
        .timeLimit(.minutes(Int((Double(minutes) * TestTimeScale.factor).rounded(.up))))
    }
}
