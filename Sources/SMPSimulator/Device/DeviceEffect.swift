/// Something the link layer must do after a request.
enum DeviceEffect: Sendable, Equatable {
    /// The reset command was answered: reboot after the reset delay.
    case resetRequested
    /// A fault: the device resets now, without answering.
    case crash
    /// Reboot after a while, for `reason` (a crash test answered, a SUIT update processed).
    case reboot(after: Duration, reason: String)
    /// A fault: the link drops now.
    case disconnect
}
