import BLEHost
import CBlueZ
import GATT
import SMP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// LE scanning through libbluetooth's HCI functions: lists the devices advertising the SMP service.
public enum BLEScanner {
    /// Scans for `duration` (on `clock`) from `adapter` (`hci0`, an adapter address, or the default
    /// route) and returns each device advertising `service` once, with its name and strongest RSSI.
    ///
    /// Active scanning, so that names in scan responses are seen. Stops early once `stop` holds for
    /// the results so far. Needs CAP_NET_RAW and CAP_NET_ADMIN.
    public static func scan(
        adapter: String? = nil, duration: Duration = .seconds(5), service: BluetoothUUID = BLETransport.serviceUUID,
        clock: SMPClock = .continuous, until stop: (@Sendable ([BLEScanResult]) -> Bool)? = nil
    ) async throws(BLEError) -> [BLEScanResult] {
        let local = try BlueZAdapter.find(adapter)
        let dd = hci_open_dev(local.deviceID)
        guard dd >= 0 else { throw BLEError.from(errno: errno, while: "opening hci\(local.deviceID)") }
        defer { _ = hci_close_dev(dd) }
        // Active scan, 10 ms interval and window, public own address, accept all advertisers.
        guard hci_le_set_scan_parameters(dd, 0x01, UInt16(0x0010).littleEndian, UInt16(0x0010).littleEndian, 0x00, 0x00, 1000) >= 0 else {
            throw BLEError.from(errno: errno, while: "setting scan parameters on hci\(local.deviceID)")
        }
        guard hci_le_set_scan_enable(dd, 0x01, 0x00, 1000) >= 0 else {
            throw BLEError.from(errno: errno, while: "starting a scan on hci\(local.deviceID)")
        }
        defer { _ = hci_le_set_scan_enable(dd, 0x00, 0x00, 1000) }

        var saved = hci_filter()
        var savedLength = socklen_t(MemoryLayout<hci_filter>.size)
        let hasSaved = getsockopt(dd, SOL_HCI, HCI_FILTER, &saved, &savedLength) == 0
        var filter = hci_filter()
        hci_filter_clear(&filter)
        hci_filter_set_ptype(HCI_EVENT_PKT, &filter)
        hci_filter_set_event(EVT_LE_META_EVENT, &filter)
        guard setsockopt(dd, SOL_HCI, HCI_FILTER, &filter, socklen_t(MemoryLayout<hci_filter>.size)) == 0 else {
            throw BLEError.from(errno: errno, while: "setting the HCI event filter")
        }
        defer { if hasSaved { _ = setsockopt(dd, SOL_HCI, HCI_FILTER, &saved, savedLength) } }

        let collector = Mutex(ScanCollector(service: service))
        let failure = Mutex<Int32?>(nil)
        let outcome = await BlockingPoll.loop(dd, events: Int16(POLLIN), timeout: duration, clock: clock) { _ in
            var buffer = [UInt8](repeating: 0, count: Int(HCI_MAX_EVENT_SIZE))
            let count = buffer.withUnsafeMutableBytes { read(dd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { return true }
                failure.withLock { $0 = errno }
                return false
            }
            let reports = HCISocketPackets.advertisingReports(in: buffer.prefix(count))
            let results = collector.withLock { c in
                reports.forEach { c.add($0) }
                return reports.isEmpty || stop == nil ? nil : c.results
            }
            guard let stop, let results else { return true }
            return !stop(results.map(BLEScanResult.init))
        }
        if case .failed(let code) = outcome { throw BLEError.from(errno: code, while: "waiting for advertising reports") }
        if let code = failure.withLock({ $0 }) { throw BLEError.from(errno: code, while: "reading advertising reports") }
        return collector.withLock { $0.results }.map(BLEScanResult.init)
    }
}
