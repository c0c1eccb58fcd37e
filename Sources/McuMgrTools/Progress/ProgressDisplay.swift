import McuMgr
import SMP
import Synchronization

/// Shows how far a transfer has come: on a terminal, a bar redrawn in place (at most ten times a
/// second) with percent, bytes, throughput and time left; otherwise one plain line at each 10 %.
public final class ProgressDisplay: Sendable {
    private struct State {
        var lastDraw: SMPInstant?
        var lastDecile = 0
        var drewBar = false
        var finished = false
        var meter: UploadProgressMeter?
    }

    private let label: String
    private let isTerminal: Bool
    private let clock: SMPClock
    private let write: @Sendable (String) -> Void
    private let state = Mutex(State())

    /// Makes a display titled `label` that writes to `fd`, as a bar when `fd` is a terminal.
    public convenience init(label: String, fd: Int32, clock: SMPClock = .continuous) {
        self.init(label: label, isTerminal: Console.isTerminal(fd), clock: clock) { Console.write($0, to: fd) }
    }

    /// Makes a display titled `label` that hands its text to `write` (a bar when `isTerminal`).
    public init(label: String, isTerminal: Bool, clock: SMPClock = .continuous, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.isTerminal = isTerminal
        self.clock = clock
        self.write = write
    }

    /// Shows an upload's progress as the engine reports it.
    public func update(_ progress: UploadProgress) {
        let now = clock.now
        let text: String? = state.withLock { s in
            guard !s.finished else { return nil }
            if isTerminal {
                if let last = s.lastDraw, now - last < .milliseconds(100), progress.bytesSent < progress.totalBytes { return nil }
                s.lastDraw = now
                s.drewBar = true
                return "\r" + ProgressText.bar(label: label, progress) + "\u{1b}[K"
            }
            let decile = ProgressText.decile(progress)
            guard decile > s.lastDecile else { return nil }
            s.lastDecile = decile
            return ProgressText.line(label: label, percent: decile * 10, progress) + "\n"
        }
        if let text { write(text) }
    }

    /// Shows `bytes` of `total` done (a download), measured by an `UploadProgressMeter` the display keeps.
    public func update(bytes: Int, total: Int) {
        let progress = state.withLock { s in
            var meter = s.meter ?? UploadProgressMeter(total: total, clock: clock)
            defer { s.meter = meter }
            var progress = meter.record(bytes)
            progress.totalBytes = total
            return progress
        }
        update(progress)
    }

    /// Ends the display (a newline after a bar); later updates are ignored.
    public func finish() {
        let drewBar = state.withLock { s -> Bool in
            defer { s.finished = true }
            return s.drewBar && !s.finished
        }
        if drewBar { write("\n") }
    }
}
