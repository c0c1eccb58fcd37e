import McuMgr
import McuMgrFleet

// The exit statuses of the fleet's results, as `mcumgr fleet` ends with them.

extension FleetReport {
    /// The exit status: 0 when every device ended upgraded or unchanged; 130 when cancelled; 3 when
    /// devices failed and none was ever reached (no device answered); else 1.
    public var exitStatus: ExitStatus {
        if succeeded { return .success }
        if stopReason == .cancelled { return .interrupted }
        let reachedAny = devices.contains { result in
            switch result.outcome {
            case .upgraded, .unchanged: return true
            case .failed(let failure): return failure.reachedDevice
            case .notStarted: return false
            }
        }
        return reachedAny || failed.isEmpty ? .device : .transport
    }
}

extension FleetDryRunReport {
    /// The exit status: 0 when every device could be read and none would be refused; 3 when no
    /// device could be read; else 1.
    public var exitStatus: ExitStatus {
        let totals = self.totals
        if totals["refuse"] == 0 && totals["unreadable"] == 0 { return .success }
        return totals["unreadable"] == entries.count ? .transport : .device
    }
}

extension FleetInventoryReport {
    /// The exit status: 0 when every device was read, 3 when none was, else 1.
    public var exitStatus: ExitStatus {
        let unread = entries.filter { $0.slots == nil }.count
        if unread == 0 { return .success }
        return unread == entries.count ? .transport : .device
    }
}

extension FleetFailure {
    /// The exit status `mcumgr` would give this failure alone.
    public var commandFailure: CommandFailure {
        switch reason {
        case .connection(let error): return CommandFailure(error)
        case .profile(let error): return CommandFailure(error)
        case .connectionString(let error): return CommandFailure(error)
        case .upgrade(let error): return CommandFailure(error)
        case .session(let error): return CommandFailure(error)
        case .unhealthy(let why): return CommandFailure(.device, why)
        }
    }
}
