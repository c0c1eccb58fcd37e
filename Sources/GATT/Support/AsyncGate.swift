import Synchronization

/// A first-come, first-served lock for async code: what one holder does across suspension points
/// is never interleaved with another holder's (one SMP packet's writes, one connection attempt,
/// one HCI command and its answer, one L2CAP PDU's fragments).
public final class AsyncGate: Sendable {
    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Makes a free gate.
    public init() {}

    /// Waits until the gate is free, then holds it.
    public func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { s -> Bool in
                if s.held {
                    s.waiters.append(continuation)
                    return false
                }
                s.held = true
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    /// Hands the gate to the next waiter, or frees it.
    public func leave() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiters.isEmpty {
                s.held = false
                return nil
            }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }

    /// Runs `body` holding the gate.
    public func withGate<T, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        await enter()
        defer { leave() }
        return try await body()
    }
}
