import NIOConcurrencyHelpers

/// This host's own signalling requests on one connection, waiting for their responses by
/// identifier. A response may arrive before its waiter does; the connection's end answers every
/// waiter with nil.
final class SignalRequests: Sendable {
    private struct Slot {
        var response: L2CAPSignal?
        var answered = false
        var continuation: CheckedContinuation<L2CAPSignal?, Never>?
    }

    private struct State {
        var next: UInt8 = 1
        var slots: [UInt8: Slot] = [:]
        var ended = false
    }

    private let state = NIOLockedValueBox(State())

    /// A fresh identifier (1 to 255, never one still waiting) whose response ``wait(for:)`` will give; nil once the connection ended.
    func register() -> UInt8? {
        state.withLockedValue { s in
            guard !s.ended, s.slots.count < 255 else { return nil }
            while s.slots[s.next] != nil || s.next == 0 { s.next &+= 1 }
            let identifier = s.next
            s.next &+= 1
            s.slots[identifier] = Slot()
            return identifier
        }
    }

    /// The response to request `identifier`: waits for it; nil when the connection ended or ``cancel(_:)`` gave up on it.
    func wait(for identifier: UInt8) async -> L2CAPSignal? {
        await withCheckedContinuation { (continuation: CheckedContinuation<L2CAPSignal?, Never>) in
            let ready = state.withLockedValue { s -> (Bool, L2CAPSignal?) in
                guard var slot = s.slots[identifier] else { return (true, nil) }
                if slot.answered {
                    s.slots[identifier] = nil
                    return (true, slot.response)
                }
                slot.continuation = continuation
                s.slots[identifier] = slot
                return (false, nil)
            }
            if ready.0 { continuation.resume(returning: ready.1) }
        }
    }

    /// Hands a response (Command Reject, or Connection Parameter Update Response: this host asks
    /// nothing else) to the request it answers; false when no request of this host waits for it.
    func deliver(_ signal: L2CAPSignal) -> Bool {
        guard signal.code == 0x01 || signal.code == 0x13 else { return false }
        return answer(signal.identifier, with: signal)
    }

    /// Gives up waiting for `identifier` (a timeout).
    func cancel(_ identifier: UInt8) {
        _ = answer(identifier, with: nil)
    }

    /// The connection ended: every waiter gets nil, later requests none.
    func endAll() {
        let waiting = state.withLockedValue { s -> [CheckedContinuation<L2CAPSignal?, Never>] in
            s.ended = true
            defer { s.slots = [:] }
            return s.slots.values.compactMap(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: nil) }
    }

    private func answer(_ identifier: UInt8, with response: L2CAPSignal?) -> Bool {
        let (known, continuation) = state.withLockedValue { s -> (Bool, CheckedContinuation<L2CAPSignal?, Never>?) in
            guard var slot = s.slots[identifier], !slot.answered else { return (false, nil) }
            guard let continuation = slot.continuation else {
                slot.answered = true
                slot.response = response
                s.slots[identifier] = slot
                return (true, nil)
            }
            s.slots[identifier] = nil
            return (true, continuation)
        }
        continuation?.resume(returning: response)
        return known
    }
}
