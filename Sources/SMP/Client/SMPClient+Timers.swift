extension SMPClient {
    /// One timer task for the whole session: it sleeps until the earliest attempt deadline of the
    /// requests in flight, then resends or fails what is due. Requests sent later with the same
    /// timeout are due later, so the timer is re-armed only when an earlier deadline appears.
    func armTimer() {
        guard let earliest = pending.values.lazy.map({ $0.deadline }).min() else {
            timer?.task.cancel()
            timer = nil
            return
        }
        if let timer, timer.target <= earliest { return }
        timer?.task.cancel()
        timer = (wake(at: earliest) { await $0.timersDue() }, earliest)
    }

    /// A task that sleeps until `instant`, then runs `action` on the session (unless cancelled
    /// first, or the session is gone): the session's timers.
    func wake(at instant: SMPInstant, _ action: @escaping @Sendable (isolated SMPClient) async -> Void) -> Task<Void, Never> {
        let clock = self.clock
        return clock.task { [weak self] in
            do { try await clock.sleep(until: instant) } catch { return }
            guard let self else { return }
            await action(self)
        }
    }

    private func timersDue() async {
        timer = nil
        let now = clock.now
        var resends: [(sequence: UInt8, entry: PendingRequest)] = []
        for (sequence, entry) in pending where entry.deadline <= now {
            let withinOverall = entry.overallDeadline.map { now < $0 } ?? true
            if entry.resends > 0 && withinOverall {
                entry.resends -= 1
                entry.attempts += 1
                var next = now + entry.timeout
                if let overall = entry.overallDeadline { next = min(next, overall) }
                entry.deadline = next
                resends.append((sequence, entry))
            } else {
                logger.debug("timeout: seq \(sequence) \(entry.group) cmd \(entry.command) after \(entry.attempts) attempts")
                finish(sequence, token: entry.token, with: .failure(.timeout(group: entry.group, command: entry.command, attempts: entry.attempts)))
            }
        }
        armTimer()
        for (sequence, entry) in resends where pending[sequence] === entry {
            logger.debug("retry \(entry.attempts - 1) of seq \(sequence) \(entry.group) cmd \(entry.command)")
            transmit(sequence, entry)
        }
        await flushOutbox()
    }
}
