/// Image requests the device answers `MGMT_ERR_EBUSY` (rc 10) before handling any, as a device
/// busy writing external flash does.
struct BusyFaults: Sendable {
    /// Busy answers still to give.
    var remaining = 0
    /// The image commands they hit.
    var commands: Set<UInt8> = []

    /// Whether a request for image `command` is answered busy now (using up one answer).
    mutating func fire(command: UInt8) -> Bool {
        guard remaining > 0, commands.contains(command) else { return false }
        remaining -= 1
        return true
    }
}
