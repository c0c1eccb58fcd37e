/// Why a check stops before it judges anything: a precondition is missing (skip), or the
/// device failed a step it needs (fail).
enum CheckStop: Error, Sendable {
    /// The check does not run, for this reason.
    case skip(String)
    /// The device failed a step the check needs.
    case fail(String)

    /// The check's outcome.
    var outcome: ConformanceOutcome {
        switch self {
        case .skip(let why): return .skipped(why)
        case .fail(let why): return .fail(why)
        }
    }
}
