import SMP

/// The device's real-time clock: unset until a date-time write, then it runs on from the value written.
struct DeviceClock: Sendable {
    private let time: SMPClock
    private var base: (milliseconds: Int64, at: SMPInstant)?

    init(startsSet: Bool, time: SMPClock) {
        self.time = time
        if startsSet {
            base = (CivilTime(year: 2024, month: 1, day: 1, hour: 0, minute: 0, second: 0).millisecondsSinceEpoch, time.now)
        }
    }

    /// The current time, or nil when the clock was never set.
    var now: CivilTime? {
        guard let base else { return nil }
        return CivilTime(millisecondsSinceEpoch: base.milliseconds + (time.now - base.at).wholeMilliseconds)
    }

    /// Microseconds since 1970 when set (for log time stamps).
    var microsecondsSinceEpoch: Int64? {
        now.map { $0.millisecondsSinceEpoch * 1000 }
    }

    /// Sets the clock.
    mutating func set(_ time: CivilTime) {
        base = (time.millisecondsSinceEpoch, self.time.now)
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded toward zero.
    var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
