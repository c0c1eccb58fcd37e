import BLEHost
import CBlueZ
import GATT
import Glibc
import POSIXIO
import SMP

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
        let library = try LibBluetooth.functions()
        let local = try BlueZAdapter.find(adapter)
        let dd = library.openDev(local.deviceID)
        guard dd >= 0 else { throw BLEError.from(errno: errno, while: "opening hci\(local.deviceID)") }
        defer { _ = library.closeDev(dd) }
        // The advertising-report filter goes on before the scan starts: hci_send_req keeps it across
        // its own commands, and a report the controller sends right after Set Scan Enable's
        // Command Complete (btvirt sends each advertiser's report and scan response only then)
        // reaches this socket instead of falling between the command and the filter.
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

        // Active scan, 10 ms interval and window, public own address, accept all advertisers.
        guard library.setScanParameters(dd, 0x01, UInt16(0x0010).littleEndian, UInt16(0x0010).littleEndian, 0x00, 0x00, 1000) >= 0 else {
            throw BLEError.from(errno: errno, while: "setting scan parameters on hci\(local.deviceID)")
        }
        guard library.setScanEnable(dd, 0x01, 0x00, 1000) >= 0 else {
            throw BLEError.from(errno: errno, while: "starting a scan on hci\(local.deviceID)")
        }
        defer { _ = library.setScanEnable(dd, 0x00, 0x00, 1000) }

        // The socket stays libbluetooth's (hci_close_dev above): borrowed, each read one HCI event.
        let events: PolledDescriptor
        do {
            events = try PolledDescriptor(borrowing: dd, kind: .datagrams, readSize: Int(HCI_MAX_EVENT_SIZE), readAhead: 64, threadName: "bluez-scan")
        } catch {
            throw BLEError.from(errno: error.errno, while: "waiting for advertising reports")
        }
        // The scan's length: closing the descriptor ends the reads.
        let timer = clock.task {
            do { try await clock.sleep(for: duration) } catch { return }
            await events.close()
        }
        var collector = ScanCollector(service: service)
        var failure: DescriptorEnd?
        reading: while let read = await events.read() {
            switch read {
            case .bytes(let packet):
                let reports = HCISocketPackets.advertisingReports(in: packet)
                var changed = false
                for report in reports where collector.add(report) { changed = true }
                if let stop, changed, stop(collector.results.map(BLEScanResult.init)) { break reading }
            case .end(let end):
                if end != .closed { failure = end }
                break reading
            }
        }
        timer.cancel()
        await events.close()
        switch failure {
        case nil: break
        case .failed(let error) where error.call == "poll":
            throw BLEError.from(errno: error.errno, while: "waiting for advertising reports")
        case .failed(let error):
            throw BLEError.from(errno: error.errno, while: "reading advertising reports")
        case .peerClosed, .closed:
            throw BLEError.io("hci\(local.deviceID) closed its socket while scanning")
        }
        return collector.results.map(BLEScanResult.init)
    }
}
