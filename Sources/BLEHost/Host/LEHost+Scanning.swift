import DequeModule
import GATT
import NIOConcurrencyHelpers

/// A device a scan found: one entry per address, with what its advertisements and scan responses said.
public struct LEScanResult: Sendable, Hashable {
    /// The device's address and address type.
    public var address: LEAddress
    /// Its complete or shortened local name, when it sent one.
    public var name: String?
    /// The service UUIDs it listed.
    public var services: [BluetoothUUID]
    /// The strongest signal seen, in dBm; nil when the controller reported none.
    public var rssi: Int?
    /// Whether it sent connectable advertisements.
    public var connectable: Bool

    /// Makes a result.
    public init(address: LEAddress, name: String?, services: [BluetoothUUID], rssi: Int?, connectable: Bool) {
        self.address = address
        self.name = name
        self.services = services
        self.rssi = rssi
        self.connectable = connectable
    }
}

/// Folds advertising reports into one result per device; with a service (or a `matching`
/// predicate) given, only devices that list it (and pass it) are results.
///
/// Bounded however crowded the place: devices that match are kept apart from the rest, up to
/// ``capacity`` of them (the first found); the others — kept only until their scan response may
/// make them match — take at most ``othersCapacity`` entries, the oldest evicted first, so any
/// number of other advertisers never crowds out a matching one. A device lists at most
/// ``maximumServices`` services (the one asked for always fits).
public struct ScanCollector: Sendable {
    /// The service a device must list to be a result; nil for every device.
    public let service: BluetoothUUID?
    /// What else a result must pass (e.g. a name or an address asked for); nil for nothing more.
    public let matching: (@Sendable (LEScanResult) -> Bool)?
    /// Matching devices remembered at most (a crowded place cannot grow memory without bound).
    public static let capacity = 1024
    /// Devices that do not match (yet) remembered at most; the oldest seen is forgotten first.
    public static let othersCapacity = 1024
    /// Services remembered per device (one address listing a new UUID in every advertisement
    /// cannot grow its list without bound); the service asked for is always kept.
    public static let maximumServices = 32

    private struct Entry: Sendable {
        var result: LEScanResult
        /// When the device was first seen, to list results in that order.
        let sequence: Int
    }

    private var kept: [LEAddress: Entry] = [:]
    private var others: [LEAddress: Entry] = [:]
    /// The others' addresses, oldest first; may still name devices that were promoted since (skipped).
    private var othersOrder = Deque<LEAddress>()
    private var nextSequence = 0

    /// Makes a collector for devices listing `service` (every device when nil) and passing `matching`.
    public init(service: BluetoothUUID?, matching: (@Sendable (LEScanResult) -> Bool)? = nil) {
        self.service = service
        self.matching = matching
    }

    /// Devices held now: the matching ones and the others.
    public var count: Int { kept.count + others.count }

    /// Takes one report (an advertisement or a scan response); true when ``results`` changed.
    @discardableResult
    public mutating func add(_ report: AdvertisingReport) -> Bool {
        let address = report.address
        if var entry = kept[address] {
            let before = entry.result
            fold(report, into: &entry.result)
            kept[address] = entry
            return entry.result != before
        }
        var entry: Entry
        if let known = others[address] {
            entry = known
        } else {
            entry = Entry(result: LEScanResult(address: address, name: nil, services: [], rssi: nil, connectable: false), sequence: nextSequence)
            nextSequence += 1
        }
        fold(report, into: &entry.result)
        if matches(entry.result) {
            if others.removeValue(forKey: address) != nil, othersOrder.count > 2 * Self.othersCapacity {
                let live = others
                othersOrder.removeAll { live[$0] == nil }
            }
            guard kept.count < Self.capacity else { return false }
            kept[address] = entry
            return true
        }
        if others[address] == nil {
            while others.count >= Self.othersCapacity, let oldest = othersOrder.popFirst() {
                others.removeValue(forKey: oldest)
            }
            othersOrder.append(address)
        }
        others[address] = entry
        return false
    }

    private func matches(_ result: LEScanResult) -> Bool {
        if let service, !result.services.contains(service) { return false }
        return matching?(result) ?? true
    }

    private func fold(_ report: AdvertisingReport, into entry: inout LEScanResult) {
        if let name = report.data.localName, entry.name == nil || report.data.hasCompleteName { entry.name = name }
        for uuid in report.data.serviceUUIDs {
            // The bound first: a full list costs one comparison per UUID, not a search.
            guard entry.services.count < Self.maximumServices || uuid == service, !entry.services.contains(uuid) else { continue }
            entry.services.append(uuid)
        }
        if let rssi = report.rssi { entry.rssi = max(entry.rssi ?? rssi, rssi) }
        if report.eventType == .connectable || report.eventType == .directed { entry.connectable = true }
    }

    /// The devices seen that match, in the order first seen.
    public var results: [LEScanResult] {
        kept.values.sorted { $0.sequence < $1.sequence }.map(\.result)
    }
}

extension LEHost {
    /// Scans (actively, so scan responses are seen) for at most `duration` and returns the devices
    /// that list `service` (every device when nil) and pass `matching`; stops as soon as `until`
    /// holds for the results.
    ///
    /// The deadline holds whatever the controller sends: the results are returned when it passes,
    /// and scanning is switched off after, in the background (the host's next scan or connection
    /// attempt waits for that).
    public func scan(
        for duration: Duration, service: BluetoothUUID? = nil, until stop: (@Sendable ([LEScanResult]) -> Bool)? = nil,
        matching: (@Sendable (LEScanResult) -> Bool)? = nil
    ) async throws(LEHostError) -> [LEScanResult] {
        await procedureGate.enter()
        var handedOver = false
        defer { if !handedOver { procedureGate.leave() } }
        let id = try state.withLockedValue { s -> Result<Int, LEHostError> in
            if let reason = s.closedReason { return .failure(.closed(reason)) }
            guard s.info != nil else { return .failure(.closed("the host has not been started")) }
            let id = s.makeID()
            s.scan = ScanSession(id: id, collector: ScanCollector(service: service, matching: matching), stop: stop)
            return .success(id)
        }.get()
        let timer = clock.task { [self] in
            do { try await clock.sleep(for: duration) } catch { return }
            finishScan(id: id)
        }
        do {
            try await run(.leSetScanParameters(active: true, interval: 0x0010, window: 0x0010, ownAddress: .random))
            try await run(.leSetScanEnable(true))
        } catch {
            timer.cancel()
            state.withLockedValue { s in if s.scan?.id == id { s.scan = nil } }
            throw error
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLockedValue { s -> Bool in
                guard var scan = s.scan, scan.id == id, !scan.done else { return true }
                scan.continuation = continuation
                s.scan = scan
                return false
            }
            if ready { continuation.resume() }
        }
        timer.cancel()
        let session = state.withLockedValue { s -> ScanSession? in
            defer { if s.scan?.id == id { s.scan = nil } }
            return s.scan?.id == id ? s.scan : nil
        }
        guard let session else { throw .closed(state.withLockedValue { $0.closedReason } ?? "the scan was abandoned") }
        // Switching the scan off may wait for the controller: the caller has its results now.
        handedOver = true
        let stopping = clock.task { [self] in
            abandonOptionalCommand()
            _ = await runOptional(.leSetScanEnable(false))
            procedureGate.leave()
        }
        state.withLockedValue { $0.scanStop = stopping }
        return session.collector.results
    }

    /// Scans until a device matching `matches` and listing `service` is found, for at most `duration`.
    public func find(
        service: BluetoothUUID?, within duration: Duration, where matches: @escaping @Sendable (LEScanResult) -> Bool
    ) async throws(LEHostError) -> LEScanResult? {
        try await scan(for: duration, service: service, until: { !$0.isEmpty }, matching: matches).first
    }

    private func finishScan(id: Int) {
        let continuation = state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
            guard var scan = s.scan, scan.id == id, !scan.done else { return nil }
            scan.done = true
            let continuation = scan.continuation
            scan.continuation = nil
            s.scan = scan
            return continuation
        }
        continuation?.resume()
    }
}
