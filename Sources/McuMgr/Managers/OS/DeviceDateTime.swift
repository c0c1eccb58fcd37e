#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The text form of OS command 4 (§3.1): `YYYY-MM-DDTHH:MM:SS`, optionally followed by a
/// fraction of a second and a time-zone suffix (`Z`, `±HH:MM`, `±HHMM` or `±HH`).
///
/// Zephyr keeps wall-clock time without a zone: it prints what it was given and never adds a
/// suffix. So the date is written as wall-clock time in a chosen zone, without a suffix, and text
/// without a suffix is read as wall-clock time in the same zone; a suffix, when a device sends
/// one, wins. Zephyr prints milliseconds with `%d` (`.5` is 5 ms), so a fraction of one to three
/// digits is read as whole milliseconds, and a longer one as a decimal fraction.
public enum DeviceDateTime {
    /// Formats `date` as `YYYY-MM-DDTHH:MM:SS` in `timeZone` (whole seconds, no suffix).
    public static func format(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return pad(c.year ?? 0, 4) + "-" + pad(c.month ?? 0, 2) + "-" + pad(c.day ?? 0, 2) + "T"
            + pad(c.hour ?? 0, 2) + ":" + pad(c.minute ?? 0, 2) + ":" + pad(c.second ?? 0, 2)
    }

    /// Parses the device's text; without a zone suffix it is wall-clock time in `timeZone`.
    /// Returns `nil` when the text is not a date-time.
    public static func parse(_ text: String, timeZone: TimeZone) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4...5), scanner.separator(),
              let month = scanner.number(digits: 1...2), scanner.separator(),
              let day = scanner.number(digits: 1...2), scanner.separator(),
              let hour = scanner.number(digits: 1...2), scanner.separator(),
              let minute = scanner.number(digits: 1...2), scanner.separator(),
              let second = scanner.number(digits: 1...2),
              (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour),
              (0...59).contains(minute), (0...60).contains(second)
        else { return nil }

        var nanoseconds = 0
        if scanner.consume(UInt8(ascii: ".")) {
            let (value, count) = scanner.digits()
            guard count > 0 else { return nil }
            if count <= 3 {
                nanoseconds = value * 1_000_000
            } else {
                let kept = min(count, 9)
                var scaled = value
                for _ in kept..<count { scaled /= 10 }
                for _ in kept..<9 { scaled *= 10 }
                nanoseconds = scaled
            }
        }

        var zone = timeZone
        if !scanner.isAtEnd {
            guard let offset = scanner.zoneOffset(), scanner.isAtEnd,
                  let suffixZone = TimeZone(secondsFromGMT: offset)
            else { return nil }
            zone = suffixZone
        }

        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(
            year: year, month: month, day: day, hour: hour, minute: minute, second: min(second, 59)
        )
        guard let date = calendar.date(from: components) else { return nil }
        return date.addingTimeInterval(Double(nanoseconds) / 1e9)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

/// A cursor over the ASCII bytes of a date-time.
private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }

    /// Reads a run of at most `limit` decimal digits (18 at most): its value and length.
    mutating func digits(limit: Int = 18) -> (Int, Int) {
        var value = 0
        var count = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), count < min(limit, 18) {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            count += 1
            index += 1
        }
        return (value, count)
    }

    /// Reads a number of `digits` digits (stopping after the most allowed, so `0100` reads as `01`, `00`).
    mutating func number(digits allowed: ClosedRange<Int>) -> Int? {
        let start = index
        let (value, count) = digits(limit: allowed.upperBound)
        guard allowed.contains(count) else {
            index = start
            return nil
        }
        return value
    }

    /// Skips one separator character (anything that is not a digit, as Zephyr accepts).
    mutating func separator() -> Bool {
        guard index < bytes.count, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return false }
        index += 1
        return true
    }

    /// Skips `byte` when it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Reads `Z`, `±HH:MM`, `±HHMM` or `±HH` as seconds east of UTC.
    mutating func zoneOffset() -> Int? {
        if consume(UInt8(ascii: "Z")) || consume(UInt8(ascii: "z")) { return 0 }
        let sign: Int
        if consume(UInt8(ascii: "+")) { sign = 1 } else if consume(UInt8(ascii: "-")) { sign = -1 } else { return nil }
        guard let hours = number(digits: 2...2), hours <= 23 else { return nil }
        var minutes = 0
        if !isAtEnd {
            _ = consume(UInt8(ascii: ":"))
            guard let m = number(digits: 2...2), m <= 59 else { return nil }
            minutes = m
        }
        return sign * (hours * 3600 + minutes * 60)
    }
}
