import SMP

/// Runs the conformance checks against one device over a connected transport, one after the
/// other, and reports each.
///
/// Bounded: a check waits at most the configured timeout for each answer; when a check saw a
/// request go unanswered the runner asks whether the device still answers an echo (with the
/// configured retries), and when it does not, the run stops there, naming the check.
public struct ConformanceRunner: Sendable {
    /// The checks the run takes from, in the order they run.
    public let checks: [ConformanceCheck]
    /// What the run may do and how long it waits.
    public let options: ConformanceOptions

    /// A runner of `checks` (every check by default) with `options`.
    public init(options: ConformanceOptions = ConformanceOptions(), checks: [ConformanceCheck] = ConformanceCheck.all) {
        self.options = options
        self.checks = checks.filter(options.selects)
    }

    /// Runs the checks over `transport` (connected; the runner is its only reader and closes
    /// it at the end); `progress` receives each result as it is known.
    public func run(
        over transport: any SMPTransport, clock: SMPClock = .continuous,
        progress: @escaping @Sendable (ConformanceResult) -> Void = { _ in }
    ) async -> ConformanceReport {
        let probe = SMPProbe(transport: transport, clock: clock, timeout: options.timeout, retries: options.retries)
        await probe.start()
        let context = ConformanceContext(probe: probe, options: options, clock: clock)
        var report = ConformanceReport(results: [])
        for check in checks {
            let result: ConformanceResult
            if let stop = report.stopped {
                result = ConformanceResult(check, outcome: .skipped("not run: the run stopped at \(stop.check)"), evidence: [])
            } else {
                let (outcome, evidence, stop) = await run(check, context: context)
                report.stopped = stop
                result = ConformanceResult(check, outcome: outcome, evidence: options.keepsEvidence ? evidence : [])
                progress(result)
            }
            report.results.append(result)
        }
        report.bufferSize = context.knownBuffers?.size
        report.bufferCount = context.knownBuffers?.count
        await probe.close()
        return report
    }

    /// Runs one check and, when it left a request unanswered, asks whether the device still answers.
    private func run(_ check: ConformanceCheck, context: ConformanceContext) async -> (ConformanceOutcome, [ConformanceEvidence], ConformanceReport.Stop?) {
        if let why = options.withheld(check) { return (.skipped(why), [], nil) }
        let probe = context.probe
        await probe.beginCheck()
        var outcome: ConformanceOutcome
        var stop: ConformanceReport.Stop?
        do {
            outcome = try await check.body(context)
        } catch {
            outcome = .fail(error.reason)
            stop = ConformanceReport.Stop(check: check.id, reason: error.reason)
        }
        let unanswered = await probe.unanswered
        let linkDown = await probe.linkDown
        if stop == nil, unanswered > 0 || linkDown != nil {
            await probe.note("a request went unanswered: is the device still answering?")
            let answering = (try? await context.isAnswering()) ?? false
            if !answering {
                let reason = "the device stopped answering during \(check.id) (no answer to echo within \(options.timeout) × \(options.retries + 1))"
                if outcome.status != .fail { outcome = .fail(reason) }
                stop = ConformanceReport.Stop(check: check.id, reason: reason)
            }
        }
        return (outcome, await probe.takeEvidence(), stop)
    }
}
