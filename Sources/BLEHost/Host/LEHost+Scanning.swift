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

/// Folds advertising reports into one result per device, in the order first seen; with a service
/// given, only devices that listed it are results.
public struct ScanCollector: Sendable {
    /// The service a device must list to be a result; nil for every device.
    public let service: BluetoothUUID?
    private var entries: [LEAddress: LEScanResult] = [:]
    private var order: [LEAddress] = []
    /// Devices remembered at most (a crowded place cannot grow memory without bound).
    public static let capacity = 1024

    /// Makes a collector for devices listing `service` (every device when nil).
    public init(service: BluetoothUUID?) {
        self.service = service
    }

    /// Takes one report (an advertisement or a scan response).
    public mutating func add(_ report: AdvertisingReport) {
        var entry: LEScanResult
        if let known = entries[report.address] {
            entry = known
        } else {
            guard order.count < Self.capacity else { return }
            order.append(report.address)
            entry = LEScanResult(address: report.address, name: nil, services: [], rssi: nil, connectable: false)
        }
        if let name = report.data.localName, entry.name == nil || report.data.hasCompleteName { entry.name = name }
        for uuid in report.data.serviceUUIDs where !entry.services.contains(uuid) { entry.services.append(uuid) }
        if let rssi = report.rssi { entry.rssi = max(entry.rssi ?? rssi, rssi) }
        if report.eventType == .connectable || report.eventType == .directed { entry.connectable = true }
        entries[report.address] = entry
    }

    /// The devices seen that match, in the order first seen.
    public var results: [LEScanResult] {
        order.compactMap { address in
            guard let entry = entries[address] else { return nil }
            if let service, !entry.services.contains(service) { return nil }
            return entry
        }
    }
}

extension LEHost {
    /// Scans (actively, so scan responses are seen) for at most `duration` and returns the devices
    /// that list `service` (every device when nil); stops as soon as `until` holds for the results.
    public func scan(
        for duration: Duration, service: BluetoothUUID? = nil, until stop: (@Sendable ([LEScanResult]) -> Bool)? = nil
    ) async throws(LEHostError) -> [LEScanResult] {
        await procedureGate.enter()
        defer { procedureGate.leave() }
        let id = try state.withLockedValue { s -> Result<Int, LEHostError> in
            if let reason = s.closedReason { return .failure(.closed(reason)) }
            guard s.info != nil else { return .failure(.closed("the host has not been started")) }
            let id = s.makeID()
            s.scan = ScanSession(id: id, collector: ScanCollector(service: service), stop: stop)
            return .success(id)
        }.get()
        do {
            try await run(.leSetScanParameters(active: true, interval: 0x0010, window: 0x0010, ownAddress: .random))
            try await run(.leSetScanEnable(true))
        } catch {
            state.withLockedValue { s in if s.scan?.id == id { s.scan = nil } }
            throw error
        }
        let timer = clock.task { [self] in
            do { try await clock.sleep(for: duration) } catch { return }
            finishScan(id: id)
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
        _ = await runOptional(.leSetScanEnable(false))
        return session.collector.results
    }

    /// Scans until a device matching `matches` and listing `service` is found, for at most `duration`.
    public func find(
        service: BluetoothUUID?, within duration: Duration, where matches: @escaping @Sendable (LEScanResult) -> Bool
    ) async throws(LEHostError) -> LEScanResult? {
        try await scan(for: duration, service: service) { results in results.contains(where: matches) }.first(where: matches)
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
