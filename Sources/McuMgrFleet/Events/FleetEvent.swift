import McuMgr

/// What a fleet upgrade reports, to every subscriber of ``FleetUpgrade/events(bufferingPolicy:)``.
public enum FleetEvent: Sendable {
    /// The fleet started with these devices (numbered in order).
    case started([FleetDevice])
    /// Something happened to one device; the device is the event's identity.
    case device(FleetDevice, FleetDeviceEvent)
    /// No further device will be started (those running finish).
    case stopping(FleetStopReason)
    /// The canary devices came back healthy; the rest start now.
    case canariesPassed(count: Int)
    /// Every device has finished; the streams end after this.
    case finished(FleetReport)
}

/// What happened to one device of a fleet.
public enum FleetDeviceEvent: Sendable {
    /// An attempt started (1 for the first).
    case attemptStarted(Int)
    /// The attempt's firmware upgrade reported this (state changes, upload progress, its end).
    case upgrade(FirmwareUpgradeEvent)
    /// The attempt failed and another starts after `delay`.
    case retrying(after: Duration, FleetFailure)
    /// A canary device's health check started.
    case checkingHealth
    /// The device finished.
    case finished(FleetDeviceOutcome)
}
