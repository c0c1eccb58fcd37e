import McuMgr

/// A dry run's answer: one entry per device in fleet order, and totals by action.
public struct FleetDryRunReport: Sendable {
    /// The devices' entries, in fleet order.
    public let entries: [FleetDryRunEntry]
    /// The images the upgrade would send.
    let images: [FirmwareUpgradeImage]

    /// How many devices would get each action category (`upload`, `test`, `confirm`, `nothing`,
    /// `refuse`, `unreadable`), every category present.
    public var totals: [String: Int] {
        var totals = ["upload": 0, "test": 0, "confirm": 0, "nothing": 0, "refuse": 0, "unreadable": 0]
        for entry in entries { totals[entry.action.category, default: 0] += 1 }
        return totals
    }

    /// Bytes the upgrade would upload across the fleet.
    public var bytesToUpload: Int {
        entries.reduce(0) { total, entry in
            if case .upload(_, let bytes) = entry.action { return total + bytes }
            return total
        }
    }
}
