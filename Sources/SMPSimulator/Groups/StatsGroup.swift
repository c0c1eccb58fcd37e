import CBOR

/// Group 2, statistics (smp-reference §3.3): a few groups whose counters move with the device's traffic.
struct StatsGroup: ManagementGroup {
    let id: UInt16 = 2
    let name = "stat mgmt"
    let handlerCount = 2

    func handle(_ request: Request, on device: DeviceCore) throws(StatusError) -> HandlerResult? {
        switch (request.header.command, request.isRead) {
        case (0, true):
            guard let name = try request.fields().text("name") else { throw StatusError(MgmtError.invalid) }
            guard let fields = Self.groups(device).first(where: { $0.name == name })?.fields else {
                return .error(id, StatError.invalidGroup)
            }
            let map = CBORValue.map(fields.map { (key: .text($0.0), value: .unsigned($0.1)) })
            return .success([(key: "name", value: .text(name)), (key: "fields", value: map)])
        case (1, true):
            return .success([(key: "stat_list", value: .array(Self.groups(device).map { .text($0.name) }))])
        default:
            return nil
        }
    }

    /// The statistics groups and their current values, in registration order.
    static func groups(_ device: DeviceCore) -> [(name: String, fields: [(String, UInt64)])] {
        let c = device.counters
        return [
            ("smp_svr_stats", [("ticks", UInt64(max(0, device.uptimeMilliseconds / 1000)))]),
            ("smp", [
                ("rx_packets", c.requests), ("tx_packets", c.responses), ("rx_bytes", c.bytesReceived),
                ("tx_bytes", c.bytesSent), ("errors", c.errors),
            ]),
            ("flash", [("bytes_written", c.flashBytesWritten), ("erases", c.flashErases)]),
        ]
    }
}
