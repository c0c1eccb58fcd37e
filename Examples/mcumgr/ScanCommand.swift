import ArgumentParser
import Hex
import McuMgrConnection
import McuMgrTools

extension MCUmgr {
    /// `mcumgr scan` (also `mcumgr --ble-scan` alone): the SMP devices advertising nearby.
    struct Scan: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "scan", abstract: "List the Bluetooth LE devices that advertise the SMP service.",
            discussion: "With --hci CONTROLLER, through our own LE host on that controller, e.g. mcumgr --hci tcp:127.0.0.1:9001 --ble-scan.")

        /// `--scan-seconds`: more than 0 and at most 10 minutes.
        static let secondsOption = DurationOption.seconds(maximum: 600, allowsZero: false)

        @Option(
            name: .customLong("scan-seconds"), help: "How long to scan, in seconds (default 5; \(Scan.secondsOption.range)).",
            transform: { try Scan.secondsOption.parse($0) })
        var seconds: Duration = .seconds(5)

        @OptionGroup var global: GlobalOptions

        private struct Entry: Encodable {
            let address: String
            let type: String
            let name: String?
            let rssi: Int?
        }

        func run() async throws {
            var spec = try global.connection().spec
            if case .ble(var parameters) = spec {
                parameters.peer = .scan
                spec = .ble(parameters)
            } else {
                spec = .ble(BLEConnectionParameters(peer: .scan, adapter: global.bleAdapter))
            }
            let found = try await ConnectionFactory.standard.scan(spec, for: seconds, options: global.connectionOptions)
            let entries = found.map { Entry(address: $0.address, type: $0.addressType.rawValue, name: $0.name, rssi: $0.rssi) }
            try global.output.emit(entries) {
                guard !entries.isEmpty else { return "no SMP device found" }
                return entries.map { entry in
                    "\(entry.address) (\(entry.type))  \(entry.name ?? "-")  \(entry.rssi.map { "\($0) dBm" } ?? "")"
                }.joined(separator: "\n")
            }
        }
    }
}
