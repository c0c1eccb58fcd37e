/// One rule a device's SMP server is checked against: what the protocol or the major clients
/// expect, why (the client behaviour it protects, from their sources), what the check may do
/// to the device, and the probe that judges it.
public struct ConformanceCheck: Sendable {
    /// A stable name, `family.rule` (e.g. `framing.sequence`).
    public let id: String
    /// The family the check belongs to.
    public let family: ConformanceFamily
    /// What the device should do, in one line.
    public let expects: String
    /// Why: the protocol reference and the client behaviour the rule protects, with sources.
    public let rationale: String
    /// Whether a failure fails the run (exit status 1); others only inform.
    public let isRequired: Bool
    /// What the check may do to the device, and so which options it needs.
    public let access: ConformanceAccess
    /// Runs the check.
    let body: @Sendable (ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome

    /// Makes a check.
    init(
        _ id: String, _ family: ConformanceFamily, required: Bool = true, access: ConformanceAccess = .readOnly,
        expects: String, rationale: String,
        body: @escaping @Sendable (ConformanceContext) async throws(ConformanceAbort) -> ConformanceOutcome
    ) {
        self.id = id
        self.family = family
        self.isRequired = required
        self.access = access
        self.expects = expects
        self.rationale = rationale
        self.body = body
    }
}

/// The families of checks, in the order they run.
public enum ConformanceFamily: String, Sendable, Hashable, CaseIterable, Encodable {
    /// The SMP header: versions, operations, sequence numbers, lengths, buffers.
    case framing
    /// The CBOR of requests: encodings, unknown keys, wrong types.
    case cbor
    /// The OS group: echo, parameters, date-time, bootloader info, reset.
    case os
    /// The image group: state, uploads, the slot state machine, swap and revert.
    case image
    /// The file-system group.
    case fs
    /// The settings group.
    case settings
    /// How the transport carries requests: pipelining, reassembly, retransmits.
    case transport
}

/// What a check may do to the device.
public enum ConformanceAccess: String, Sendable, Hashable, CaseIterable, Encodable {
    /// Reads, and writes that change nothing or are undone at once.
    case readOnly = "read-only"
    /// Uploads, erases, settings and file writes, undone before the check ends (`--allow-writes`).
    case writes = "--allow-writes"
    /// Resets the device and reconnects (`--allow-reset`).
    case reset = "--allow-reset"
    /// Uploads an image, marks it for test and resets, twice, to see it swap in and revert
    /// (`--allow-writes --allow-reset`).
    case writesAndReset = "--allow-writes --allow-reset"
}

/// How a check ended, and what the device did.
struct ConformanceOutcome: Sendable {
    /// The verdict.
    let status: ConformanceStatus
    /// What the device did, in a sentence.
    let observed: String

    /// The device did what is expected.
    static func pass(_ observed: String) -> ConformanceOutcome { ConformanceOutcome(status: .pass, observed: observed) }
    /// The device broke the rule; `observed` names it.
    static func fail(_ observed: String) -> ConformanceOutcome { ConformanceOutcome(status: .fail, observed: observed) }
    /// The device does not offer what the check needs (it says so, e.g. `MGMT_ERR_ENOTSUP`).
    static func unsupported(_ observed: String) -> ConformanceOutcome { ConformanceOutcome(status: .unsupported, observed: observed) }
    /// The check did not run: an option, or a state of the device, it needs is missing.
    static func skipped(_ why: String) -> ConformanceOutcome { ConformanceOutcome(status: .skipped, observed: why) }
}

/// The device stopped answering, or the link failed for good: the run ends at this check.
struct ConformanceAbort: Error, Sendable {
    /// What happened.
    let reason: String
}
