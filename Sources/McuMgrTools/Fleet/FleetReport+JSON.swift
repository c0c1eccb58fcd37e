import McuMgr
import McuMgrFleet
import SMP

extension FleetReport: Encodable {
    private enum Keys: String, CodingKey {
        case ok, action, devices, totals, stopped, seconds
        case bytesUploaded = "bytes_uploaded", bytesPerSecond = "bytes_per_second", exitStatus = "exit_status"
    }

    private struct Totals: Encodable {
        let devices: Int, upgraded: Int, unchanged: Int, failed: Int, not_started: Int
    }

    /// `{"ok", "action": "fleet-upgrade", "devices": […], "totals": {…}, "stopped", "seconds",
    /// "bytes_uploaded", "bytes_per_second", "exit_status"}` (see the DevicesFile article).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(succeeded, forKey: .ok)
        try c.encode("fleet-upgrade", forKey: .action)
        try c.encode(devices, forKey: .devices)
        try c.encode(Totals(
            devices: devices.count, upgraded: upgraded.count, unchanged: unchanged.count, failed: failed.count,
            not_started: notStarted.count), forKey: .totals)
        try c.encode(stopReason?.description, forKey: .stopped)
        let seconds = duration.seconds
        try c.encode((seconds * 1000).rounded() / 1000, forKey: .seconds)
        try c.encode(bytesUploaded, forKey: .bytesUploaded)
        try c.encode((seconds > 0 ? Double(bytesUploaded) / seconds : 0).rounded(), forKey: .bytesPerSecond)
        try c.encode(exitStatus.rawValue, forKey: .exitStatus)
    }
}

extension FleetDeviceResult: Encodable {
    private enum Keys: String, CodingKey {
        case index, name, connection, result, attempts, state, reason, retriable, images, resets
        case deviceError = "device_error", bytesUploaded = "bytes_uploaded", uploadSeconds = "upload_seconds"
        case bytesPerSecond = "bytes_per_second", stoppedBy = "stopped_by"
    }

    /// The device's index, name, connection, result and attempts; for a success the bytes, time,
    /// rate, resets and final image table; for a failure the state, reason, device error and
    /// whether a retry may help; for a device not started, why.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(device.index, forKey: .index)
        try c.encode(device.name, forKey: .name)
        try c.encode(device.target.description, forKey: .connection)
        try c.encode(resultName.replacing(" ", with: "_"), forKey: .result)
        try c.encode(attempts, forKey: .attempts)
        switch outcome {
        case .upgraded(let report), .unchanged(let report):
            try c.encode(report.bytesUploaded, forKey: .bytesUploaded)
            try c.encode((report.uploadDuration.seconds * 1000).rounded() / 1000, forKey: .uploadSeconds)
            try c.encode(report.averageBytesPerSecond.rounded(), forKey: .bytesPerSecond)
            try c.encode(report.resets, forKey: .resets)
            try c.encode(report.slots, forKey: .images)
        case .failed(let failure):
            try c.encode(failure.phase.description, forKey: .state)
            try c.encode(failure.cause, forKey: .reason)
            try c.encode(failure.deviceError?.description, forKey: .deviceError)
            try c.encode(failure.isRetriable, forKey: .retriable)
        case .notStarted(let reason):
            try c.encode(reason.description, forKey: .stoppedBy)
        }
    }
}
