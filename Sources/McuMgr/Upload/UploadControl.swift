import Synchronization

/// Pause and resume for a running upload, shared between the engine and whoever drives it.
public final class UploadControl: Sendable {
    private struct State {
        var paused = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Makes a control that is not paused.
    public init() {}

    /// Whether new chunks are held back.
    public var isPaused: Bool { state.withLock { $0.paused } }

    /// Holds back new chunks; those in flight still finish.
    public func pause() {
        state.withLock { $0.paused = true }
    }

    /// Lets chunks flow again.
    public func resume() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.paused = false
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when not paused (at once if not paused), or when the task is cancelled.
    func waitWhilePaused() async {
        while isPaused && !Task.isCancelled {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { s -> Bool in
                        guard s.paused else { return true }
                        s.waiters.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                self.wakeAll()
            }
        }
    }

    private func wakeAll() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
