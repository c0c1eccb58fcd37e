import McuMgrConnection

/// A fleet device whose connection is known, with the lane it takes turns in.
struct FleetSlotItem: Sendable {
    let device: FleetDevice
    let spec: ConnectionSpec
    let lane: FleetLane?

    init(device: FleetDevice, spec: ConnectionSpec) {
        self.device = device
        self.spec = spec
        self.lane = FleetConcurrency.lane(of: spec)
    }
}

/// Starts work on devices in list order within a ``FleetConcurrency``: a device whose lane is
/// busy waits without holding up devices of other lanes behind it.
enum FleetScheduler {
    /// Runs `work` once for each item and returns when all have finished.
    ///
    /// Before each start `gate` is asked (it may wait, e.g. while the fleet is paused); once it
    /// says no, that item and every one not yet started go to `skip` instead. Child tasks inherit
    /// the caller's task executor (a virtual runtime's in tests).
    static func run(
        _ items: [FleetSlotItem], concurrency: FleetConcurrency,
        gate: @escaping @Sendable () async -> Bool,
        work: @escaping @Sendable (FleetSlotItem) async -> Void,
        skip: @escaping @Sendable (FleetSlotItem) -> Void
    ) async {
        await withTaskGroup(of: FleetLane?.self) { group in
            // Items in list order; a started one is marked, and `head` moves past the started
            // ones at the front, so that starting in order costs O(1) each, not a shift of the
            // rest (a fleet can hold 100 000 devices).
            var started = [Bool](repeating: false, count: items.count)
            var head = 0
            var running = 0
            var perLane: [FleetLane: Int] = [:]
            func startable(_ item: FleetSlotItem) -> Bool {
                if let limit = concurrency.limit, running >= limit { return false }
                guard let lane = item.lane else { return true }
                return perLane[lane, default: 0] < concurrency.capacity(of: lane)
            }
            func finished(_ lane: FleetLane?) {
                running -= 1
                if let lane { perLane[lane, default: 1] -= 1 }
            }
            while head < items.count {
                guard let position = (head..<items.count).first(where: { !started[$0] && startable(items[$0]) }) else {
                    if let lane = await group.next() { finished(lane) }
                    continue
                }
                guard await gate() else {
                    for index in head..<items.count where !started[index] { skip(items[index]) }
                    break
                }
                let item = items[position]
                started[position] = true
                while head < items.count, started[head] { head += 1 }
                running += 1
                if let lane = item.lane { perLane[lane, default: 0] += 1 }
                group.addTask {
                    await work(item)
                    return item.lane
                }
            }
            for await lane in group { finished(lane) }
        }
    }
}
