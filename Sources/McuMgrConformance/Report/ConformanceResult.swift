/// One check's line in the report: the check, what was expected, what the device did, the
/// verdict and the packets that show it.
public struct ConformanceResult: Sendable, Encodable {
    /// The check's name (`framing.sequence`).
    public let id: String
    /// Its family.
    public let family: ConformanceFamily
    /// What the device should do, in one line.
    public let expects: String
    /// Why, with the client behaviour the rule protects.
    public let rationale: String
    /// Whether a failure fails the run.
    public let required: Bool
    /// What the check may do to the device.
    public let access: ConformanceAccess
    /// The verdict.
    public let status: ConformanceStatus
    /// What the device did.
    public let observed: String
    /// The packets sent and received, in hex, and remarks.
    public let evidence: [ConformanceEvidence]

    /// Makes the line of `check`.
    init(_ check: ConformanceCheck, outcome: ConformanceOutcome, evidence: [ConformanceEvidence]) {
        id = check.id
        family = check.family
        expects = check.expects
        rationale = check.rationale
        required = check.isRequired
        access = check.access
        status = outcome.status
        observed = outcome.observed
        self.evidence = evidence
    }

    /// A required check that failed.
    public var failsTheRun: Bool { required && status == .fail }
}
