import McuMgrConformance

extension ConformanceReport {
    /// How a conformance run ends: 3 when the device stopped answering, 1 when a required check
    /// failed, else 0.
    public var exitStatus: ExitStatus {
        if stopped != nil { return .transport }
        return requiredFailures.isEmpty ? .success : .device
    }
}
