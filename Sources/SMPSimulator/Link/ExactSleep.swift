import SMP

extension SMPClock {
    /// Sleeps until `deadline` with no timer slack, for the link model's time (latency, wire and
    /// air time, flash writes). Without a tolerance, Swift's default executor on Linux schedules
    /// through `dispatch_after`, which lets a timer fire up to max(1 ms, 10 %) late: a 5 ms link
    /// latency would then behave as 5.5–6 ms and the model would be slower than its parameters.
    func sleepExactly(until deadline: SMPInstant) async throws {
        try await sleep(until: deadline, tolerance: .zero)
    }

    /// Sleeps for `duration` with no timer slack (see ``sleepExactly(until:)``).
    func sleepExactly(for duration: Duration) async throws {
        try await sleep(until: now + duration, tolerance: .zero)
    }
}
