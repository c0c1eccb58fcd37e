import McuMgr
import Synchronization

/// Pause, resume, cancel and stop for a whole fleet, shared by its devices' tasks: it holds the
/// running upgrades (to pause or cancel them), the failure count, and why no more devices start.
final class FleetControl: Sendable {
    private struct State {
        var paused = false
        var cancelled = false
        var stop: FleetStopReason?
        var failures = 0
        var upgrades: [Int: FirmwareUpgrade] = [:]
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Whether the fleet is paused.
    var isPaused: Bool { state.withLock { $0.paused } }

    /// Whether the fleet was cancelled.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Why no more devices start, once they do not.
    var stopReason: FleetStopReason? { state.withLock { $0.stop } }

    /// Holds new devices and the uploads of running ones (other steps of a running upgrade go on).
    func pause() {
        let upgrades = state.withLock { s -> [FirmwareUpgrade] in
            s.paused = true
            return Array(s.upgrades.values)
        }
        for upgrade in upgrades { upgrade.pause() }
    }

    /// Lets uploads and new devices go on.
    func resume() {
        let (upgrades, waiters) = state.withLock { s -> ([FirmwareUpgrade], [CheckedContinuation<Void, Never>]) in
            s.paused = false
            defer { s.waiters.removeAll() }
            return (Array(s.upgrades.values), s.waiters)
        }
        for upgrade in upgrades { upgrade.resume() }
        for waiter in waiters { waiter.resume() }
    }

    /// Cancels every running upgrade and starts no more devices; returns whether this call stopped the fleet.
    @discardableResult
    func cancel() -> Bool {
        let (upgrades, waiters, first) = state.withLock { s -> ([FirmwareUpgrade], [CheckedContinuation<Void, Never>], Bool) in
            let first = !s.cancelled
            s.cancelled = true
            if s.stop == nil { s.stop = .cancelled }
            defer { s.waiters.removeAll() }
            return (Array(s.upgrades.values), s.waiters, first)
        }
        for upgrade in upgrades { upgrade.cancel() }
        for waiter in waiters { waiter.resume() }
        return first
    }

    /// Starts no more devices, for `reason`; returns whether this call stopped the fleet.
    @discardableResult
    func stop(_ reason: FleetStopReason) -> Bool {
        state.withLock { s in
            guard s.stop == nil else { return false }
            s.stop = reason
            return true
        }
    }

    /// Counts a failed device; returns the stop reason when this failure reaches `limit`.
    func recordFailure(limit: Int?) -> FleetStopReason? {
        state.withLock { s in
            s.failures += 1
            guard let limit, s.failures >= limit, s.stop == nil else { return nil }
            s.stop = .tooManyFailures(failed: s.failures, limit: limit)
            return s.stop
        }
    }

    /// Keeps a running upgrade, pausing or cancelling it at once when the fleet is.
    func register(_ upgrade: FirmwareUpgrade, for index: Int) {
        let (paused, cancelled) = state.withLock { s -> (Bool, Bool) in
            s.upgrades[index] = upgrade
            return (s.paused, s.cancelled)
        }
        if paused { upgrade.pause() }
        if cancelled { upgrade.cancel() }
    }

    /// Forgets a device's upgrade.
    func unregister(_ index: Int) {
        _ = state.withLock { $0.upgrades.removeValue(forKey: index) }
    }

    /// Waits while the fleet is paused (and not cancelled), then says whether another device may start.
    func mayStart() async -> Bool {
        while true {
            let ready = state.withLock { s -> Bool in !s.paused || s.cancelled }
            if ready { break }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    guard s.paused && !s.cancelled else { return true }
                    s.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
        return state.withLock { $0.stop == nil }
    }
}
