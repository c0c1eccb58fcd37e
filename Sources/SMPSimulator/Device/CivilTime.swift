/// A calendar date and time without a time zone, converted to and from milliseconds since 1970.
struct CivilTime: Sendable, Hashable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    var millisecond: Int

    /// Days from 1970-01-01 (Howard Hinnant's `days_from_civil`).
    private static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Milliseconds since 1970-01-01T00:00:00.
    var millisecondsSinceEpoch: Int64 {
        let d = Int64(Self.days(year: year, month: month, day: day))
        return ((d * 24 + Int64(hour)) * 60 + Int64(minute)) * 60_000 + Int64(second) * 1000 + Int64(millisecond)
    }

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
    }

    /// The civil time of a millisecond count since 1970 (`civil_from_days`).
    init(millisecondsSinceEpoch ms: Int64) {
        var days = ms / 86_400_000
        var rest = ms % 86_400_000
        if rest < 0 {
            rest += 86_400_000
            days -= 1
        }
        let z = Int(days) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let r = Int(rest)
        self.init(
            year: year, month: month, day: day, hour: r / 3_600_000, minute: r / 60_000 % 60,
            second: r / 1000 % 60, millisecond: r % 1000)
    }

    /// Zephyr's format: `YYYY-MM-DDTHH:MM:SS`, plus `.<ms>` printed with `%d` when asked.
    func formatted(withMilliseconds: Bool) -> String {
        func pad(_ n: Int, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let base = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
        return withMilliseconds ? base + ".\(millisecond)" : base
    }

    /// Parses a date-time as Zephyr's date-time set does: 19–25 characters, six decimal fields
    /// separated by single characters, an optional `.fraction`; nil when malformed or out of range.
    init?(parsing text: String) {
        let chars = Array(text.utf8)
        guard (19...25).contains(chars.count) else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard chars[i] >= 0x30 && chars[i] <= 0x39 else { return nil }
                value = value * 10 + Int(chars[i] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        guard (1900...11899).contains(year), (1...12).contains(month), (1...31).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        var millisecond = 0
        var index = 19
        if index < chars.count, chars[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            var fraction = 0
            while index < chars.count, chars[index] >= 0x30 && chars[index] <= 0x39 {
                if digits < 3 { fraction = fraction * 10 + Int(chars[index] - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            var scale = digits
            while scale < 3 {
                fraction *= 10
                scale += 1
            }
            millisecond = fraction
        }
        // A time-zone suffix (`Z`, `+hh:mm`) is accepted and ignored: the device keeps local time.
        if index < chars.count {
            let rest = chars[index...]
            let zone = rest.first == UInt8(ascii: "Z") || rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-")
            guard zone, rest.count <= 6 else { return nil }
        }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second, millisecond: millisecond)
    }
}
