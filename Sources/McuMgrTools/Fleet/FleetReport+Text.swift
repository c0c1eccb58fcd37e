import McuMgr
import McuMgrFleet

extension FleetReport {
    /// How many devices not started are named one by one in ``summary``; the rest are counted.
    static let namedNotStarted = 20

    /// The final summary: totals, why the fleet stopped, each failed device with its state and
    /// error, and the devices not started.
    ///
    /// ```text
    /// Fleet upgrade: 14 upgraded, 1 unchanged, 1 failed, 0 not started (16 devices, 3.50 MiB uploaded in 12.34 s, 290.1 KiB/s)
    /// Failed:
    ///   dev-5 (udp:127.0.0.7:1337), 1 attempt: failed in state upload: the device refused the upload: access denied (11)
    /// ```
    public var summary: String {
        let seconds = duration.seconds
        let rate = seconds > 0 ? Double(bytesUploaded) / seconds : 0
        var lines = [
            "Fleet upgrade: \(upgraded.count) upgraded, \(unchanged.count) unchanged, \(failed.count) failed, "
                + "\(notStarted.count) not started (\(devices.count) devices, \(TextFormat.size(Double(bytesUploaded))) uploaded "
                + "in \(TextFormat.fixed(seconds, 2)) s, \(TextFormat.rate(rate)))"
        ]
        if let stopReason { lines.append("Stopped: \(stopReason); no further device was started") }
        if !failed.isEmpty {
            lines.append("Failed:")
            for result in failed {
                let attempts = result.attempts == 1 ? "1 attempt" : "\(result.attempts) attempts"
                lines.append("  \(Self.identity(result.device)), \(attempts): \(result.outcome.failure!)")
            }
        }
        if !notStarted.isEmpty {
            var names = notStarted.prefix(Self.namedNotStarted).map(\.device.label).joined(separator: ", ")
            if notStarted.count > Self.namedNotStarted { names += " and \(notStarted.count - Self.namedNotStarted) more" }
            lines.append("Not started: \(names)")
        }
        return lines.joined(separator: "\n")
    }

    /// `name (connection)`, or the connection alone for a device without a name.
    static func identity(_ device: FleetDevice) -> String {
        device.name.map { "\($0) (\(device.target))" } ?? device.target.description
    }
}
