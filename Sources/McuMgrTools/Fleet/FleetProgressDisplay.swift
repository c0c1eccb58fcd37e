import McuMgr
import McuMgrFleet
import SMP

/// Shows a fleet upgrade as it runs: on a terminal, a table with one line per device (a bar,
/// percent, rate and state) redrawn in place at most ten times a second; otherwise plain lines —
/// each device's start, every 10 % of its upload, its retries and its end.
///
/// The display only formats: feed it the fleet's events with ``consume(_:statuses:)``.
public final class FleetProgressDisplay: Sendable {
    /// The most table lines drawn on a terminal; larger fleets show the devices at work and counts.
    public let maximumRows: Int
    private let isTerminal: Bool
    private let clock: SMPClock
    private let write: @Sendable (String) -> Void

    /// Makes a display that hands its text to `write`, as a table when `isTerminal`.
    public init(isTerminal: Bool, clock: SMPClock = .continuous, maximumRows: Int = 40, write: @escaping @Sendable (String) -> Void) {
        self.isTerminal = isTerminal
        self.clock = clock
        self.maximumRows = max(maximumRows, 3)
        self.write = write
    }

    /// Makes a display writing to `fd`, as a table when `fd` is a terminal.
    public convenience init(fd: Int32, clock: SMPClock = .continuous) {
        self.init(isTerminal: Console.isTerminal(fd), clock: clock) { Console.write($0, to: fd) }
    }

    /// Shows `events` until the stream ends; `statuses` reads the devices' statuses for the table.
    public func consume(_ events: AsyncStream<FleetEvent>, statuses: @Sendable () -> [FleetDeviceStatus]) async {
        var deciles: [Int: Int] = [:]
        var drawnLines = 0
        var lastDraw: SMPInstant?
        var footer = ""
        for await event in events {
            if isTerminal {
                switch event {
                case .stopping(let reason): footer = "stopping: \(reason); no further device starts"
                case .canariesPassed(let count): footer = "\(count) canary device(s) came back healthy; starting the rest"
                default: break
                }
                let now = clock.now
                var final = false
                if case .finished = event { final = true }
                if !final, let last = lastDraw, now - last < .milliseconds(100) { continue }
                lastDraw = now
                drawnLines = redraw(Self.table(statuses(), footer: footer, maximumRows: maximumRows), over: drawnLines)
            } else if let line = Self.line(for: event, deciles: &deciles) {
                write(line + "\n")
            }
        }
    }

    /// Draws `lines` over the `previous` lines drawn; returns how many lines are on screen now.
    private func redraw(_ lines: [String], over previous: Int) -> Int {
        var text = previous > 0 ? "\u{1b}[\(previous)A" : ""
        for line in lines { text += "\r" + line + "\u{1b}[K\n" }
        write(text)
        return lines.count
    }

    // MARK: - Text

    /// The plain line for an event, if it has one; `deciles` keeps each device's last 10 % step.
    static func line(for event: FleetEvent, deciles: inout [Int: Int]) -> String? {
        switch event {
        case .started(let devices):
            return "fleet: upgrading \(devices.count) device\(devices.count == 1 ? "" : "s")"
        case .stopping(let reason):
            return "fleet: stopping: \(reason); no further device starts"
        case .canariesPassed(let count):
            return "fleet: \(count) canary device\(count == 1 ? "" : "s") came back healthy; starting the rest"
        case .finished:
            return nil
        case .device(let device, let event):
            switch event {
            case .attemptStarted(let attempt):
                deciles[device.index] = 0
                return "\(device.label): " + (attempt == 1 ? "started" : "attempt \(attempt)")
            case .upgrade(.uploadProgress(_, let progress)):
                let decile = ProgressText.decile(progress)
                guard decile > deciles[device.index, default: 0] else { return nil }
                deciles[device.index] = decile
                return ProgressText.line(label: device.label, percent: decile * 10, progress)
            case .upgrade:
                return nil
            case .retrying(let delay, let failure):
                return "\(device.label): \(failure); retrying in \(TextFormat.fixed(delay.seconds, 1)) s"
            case .checkingHealth:
                return "\(device.label): checking that the canary runs the new image, confirmed"
            case .finished(let outcome):
                return "\(device.label): \(outcome)"
            }
        }
    }

    /// The terminal table: one line per device (or the devices at work, when there are more than
    /// `maximumRows`), then a line of counts and the footer.
    static func table(_ statuses: [FleetDeviceStatus], footer: String, maximumRows: Int) -> [String] {
        let width = min(24, statuses.map(\.device.label.count).max() ?? 0)
        var shown = statuses
        if statuses.count > maximumRows {
            shown = Array(statuses.filter { $0.phase != .waiting && $0.phase != .finished }.prefix(maximumRows))
        }
        var lines = shown.map { row($0, labelWidth: width) }
        if statuses.count > maximumRows {
            // Keep the height fixed so the table redraws in place.
            lines += Array(repeating: "", count: maximumRows - lines.count)
        }
        let done = statuses.filter { $0.outcome != nil }
        let failed = done.filter { $0.outcome?.failure != nil }.count
        let working = statuses.filter { $0.phase != .waiting && $0.outcome == nil }.count
        lines.append("\(done.count)/\(statuses.count) done (\(failed) failed), \(working) at work" + (footer.isEmpty ? "" : "; \(footer)"))
        return lines
    }

    /// One device's table line: `dev-3   [##########----------]  50%  56.7 KiB/s  upload (attempt 2)`.
    static func row(_ status: FleetDeviceStatus, labelWidth: Int) -> String {
        let fraction = status.outcome?.succeeded == true ? 1 : status.progress?.fraction ?? 0
        let rate = status.outcome == nil ? TextFormat.right(status.progress?.rateText ?? "", 12) : TextFormat.right("", 12)
        var state: String
        switch status.outcome {
        case .upgraded?: state = "upgraded"
        case .unchanged?: state = "unchanged"
        case .failed(let failure)?: state = "failed in \(failure.phase)"
        case .notStarted?: state = "not started"
        case nil: state = status.phase.description
        }
        if status.attempts > 1 { state += " (attempt \(status.attempts))" }
        let label = String(status.device.label.prefix(labelWidth))
        return "\(TextFormat.left(label, labelWidth))  \(ProgressText.gauge(fraction, width: 20))  \(rate)  \(state)"
    }
}
