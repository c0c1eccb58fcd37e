/// The controller's LE ACL buffers as the host counts them: one credit per packet the controller
/// can hold, taken per fragment sent and given back by Number Of Completed Packets events (and,
/// for a connection that ends, by its Disconnection Complete: the controller flushes its packets).
struct ACLCredits: Sendable {
    /// Buffers the controller has (LE Read Buffer Size).
    private(set) var total: Int
    /// Buffers free now.
    private(set) var available: Int
    /// Packets sent and not yet completed, per connection handle.
    private(set) var outstanding: [UInt16: Int] = [:]

    init(total: Int) {
        self.total = max(1, total)
        self.available = max(1, total)
    }

    /// Takes a credit for a packet on `handle`; false when none is free.
    mutating func take(for handle: UInt16) -> Bool {
        guard available > 0 else { return false }
        available -= 1
        outstanding[handle, default: 0] += 1
        return true
    }

    /// Gives back credits the controller reported complete; never more than were taken on the handle.
    /// Returns the count the report claimed beyond that (ignored, and logged by the host).
    mutating func complete(_ count: Int, on handle: UInt16) -> Int {
        let taken = outstanding[handle] ?? 0
        let returned = min(max(0, count), taken)
        outstanding[handle] = taken - returned
        if outstanding[handle] == 0 { outstanding[handle] = nil }
        available = min(total, available + returned)
        return max(0, count) - returned
    }

    /// Gives back every credit of a connection that ended.
    mutating func release(handle: UInt16) {
        let taken = outstanding.removeValue(forKey: handle) ?? 0
        available = min(total, available + taken)
    }
}
