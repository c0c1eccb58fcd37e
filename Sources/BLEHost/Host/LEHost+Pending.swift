extension LEHost {
    /// Waits for the result of the pending operation `id` kept at `slot` of the host's state (a
    /// command, a connection attempt, advertising); one no longer there (the host stopped, or gave
    /// it up) fails as `.closed` with the host's reason, else `abandoned`.
    func awaitResult<Value: Sendable>(
        of id: Int, at slot: WritableKeyPath<HostState, Pending<Value>?>, abandoned: String
    ) async -> Result<Value, LEHostError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, LEHostError>, Never>) in
            let ready = state.withLockedValue { s -> Result<Value, LEHostError>? in
                guard var pending = s[keyPath: slot], pending.id == id else { return .failure(.closed(s.closedReason ?? abandoned)) }
                if let result = pending.result {
                    s[keyPath: slot] = nil
                    return result
                }
                pending.continuation = continuation
                s[keyPath: slot] = pending
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Completes the pending operation `id` at `slot`: its waiter resumes, or finds `result` when it
    /// comes to wait. False when the operation is no longer there or already has its result.
    @discardableResult
    func complete<Value: Sendable>(_ id: Int, at slot: WritableKeyPath<HostState, Pending<Value>?>, with result: Result<Value, LEHostError>) -> Bool {
        let (continuation, completed) = state.withLockedValue { s -> (CheckedContinuation<Result<Value, LEHostError>, Never>?, Bool) in
            guard var pending = s[keyPath: slot], pending.id == id, pending.result == nil else { return (nil, false) }
            guard let continuation = pending.continuation else {
                pending.result = result
                s[keyPath: slot] = pending
                return (nil, true)
            }
            s[keyPath: slot] = nil
            return (continuation, true)
        }
        continuation?.resume(returning: result)
        return completed
    }
}
