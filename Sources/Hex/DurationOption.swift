// Durations on command lines: a decimal number of seconds or milliseconds, checked to be finite
// and within a documented range before it becomes a `Duration` (whose conversion of a huge or
// infinite `Double` traps). Both `mcumgr` and `mcumgr-sim` read their duration options through it.

/// The rule of one duration option: its unit, its largest value, and whether 0 is allowed.
/// ``parse(_:)`` turns what a user typed into a `Duration`, or into an error naming the range.
public struct DurationOption: Sendable, Hashable {
    /// The unit the option's number is in.
    public enum Unit: String, Sendable, Hashable {
        /// Seconds (`--reset-timeout 60`).
        case seconds
        /// Milliseconds (`mcumgr-sim --latency 5`).
        case milliseconds
    }

    /// The unit of the number.
    public let unit: Unit
    /// The largest value allowed, in ``unit``.
    public let maximum: Double
    /// Whether 0 is allowed (otherwise the value must be more than 0).
    public let allowsZero: Bool

    /// Makes a rule: values from 0 (or, without `allowsZero`, more than 0) up to `maximum`, in `unit`.
    public init(_ unit: Unit, maximum: Double, allowsZero: Bool = true) {
        self.unit = unit
        self.maximum = maximum
        self.allowsZero = allowsZero
    }

    /// Seconds from 0 (or more than 0) up to `maximum`.
    public static func seconds(maximum: Double, allowsZero: Bool = true) -> DurationOption {
        DurationOption(.seconds, maximum: maximum, allowsZero: allowsZero)
    }

    /// Milliseconds from 0 (or more than 0) up to `maximum`.
    public static func milliseconds(maximum: Double, allowsZero: Bool = true) -> DurationOption {
        DurationOption(.milliseconds, maximum: maximum, allowsZero: allowsZero)
    }

    /// The values allowed, in words: `0 to 86400 seconds`, `more than 0 and at most 3600 seconds`.
    public var range: String {
        let largest = Self.number(maximum)
        return allowsZero ? "0 to \(largest) \(unit.rawValue)" : "more than 0 and at most \(largest) \(unit.rawValue)"
    }

    /// Reads `text` (a decimal number such as `60`, `0.5` or `1e3`) as a duration in ``unit``;
    /// anything else, a value that is not finite, negative, 0 when not allowed, or past the
    /// maximum fails with the allowed range.
    public func parse(_ text: String) throws(DurationOptionError) -> Duration {
        guard let value = Double(text), value.isFinite, value <= maximum, allowsZero ? value >= 0 : value > 0 else {
            throw DurationOptionError(text: text, option: self)
        }
        switch unit {
        case .seconds: return .seconds(value)
        case .milliseconds: return .milliseconds(value)
        }
    }

    /// `86400`, `0.5`: whole numbers without a fraction.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// A duration option's value was not a number within its range.
public struct DurationOptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was typed.
    public let text: String
    /// The rule it broke.
    public let option: DurationOption

    /// Makes an error.
    public init(text: String, option: DurationOption) {
        self.text = text
        self.option = option
    }

    /// `expected 0 to 86400 seconds`: the command line's parser names the option and the value.
    public var description: String { "expected \(option.range)" }
}
