import Synchronization

/// A one-shot hand-over of a request's result from the session to the task awaiting it.
final class ResponseSlot: Sendable {
    private struct State {
        var result: Result<SMPPacket, SMPError>?
        var waiter: CheckedContinuation<Result<SMPPacket, SMPError>, Never>?
    }

    private let state = Mutex(State())

    /// Hands over the result (only the first counts).
    func deliver(_ result: Result<SMPPacket, SMPError>) {
        let waiter = state.withLock { s -> CheckedContinuation<Result<SMPPacket, SMPError>, Never>? in
            guard s.result == nil else { return nil }
            s.result = result
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: result)
    }

    /// Waits for the result.
    func wait() async -> Result<SMPPacket, SMPError> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Result<SMPPacket, SMPError>? in
                if let result = s.result { return result }
                s.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
