import McuMgr
import Synchronization

/// Shows how far a transfer has come: on a terminal, a bar redrawn in place with percent, bytes,
/// throughput and time left; otherwise one plain line at each 10 %.
final class ProgressDisplay: Sendable {
    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var lastDecile = 0
        var drewBar = false
        var finished = false
        var start = ContinuousClock.now
        var startBytes: Int?
    }

    private let label: String
    private let fd: Int32
    private let isTerminal: Bool
    private let state = Mutex(State())

    /// Makes a display titled `label` writing to `fd`.
    init(label: String, fd: Int32) {
        self.label = label
        self.fd = fd
        self.isTerminal = Console.isTerminal(fd)
    }

    /// Shows `bytes` of `total` done; `rate` is the current throughput, computed when nil.
    func update(bytes: Int, total: Int, rate givenRate: Double? = nil) {
        let now = ContinuousClock.now
        let line: String? = state.withLock { s in
            guard !s.finished else { return nil }
            if s.startBytes == nil {
                s.startBytes = bytes
                s.start = now
            }
            let elapsed = (now - s.start).inSeconds
            let average = elapsed > 0 ? Double(bytes - (s.startBytes ?? 0)) / elapsed : 0
            let rate = givenRate.flatMap { $0 > 0 ? $0 : nil } ?? average
            let fraction = total > 0 ? min(1, Double(bytes) / Double(total)) : 1
            let remaining = rate > 0 ? Double(total - bytes) / rate : .infinity
            if isTerminal {
                if let last = s.lastDraw, now - last < .milliseconds(100), bytes < total { return nil }
                s.lastDraw = now
                s.drewBar = true
                return "\r" + bar(fraction: fraction, bytes: bytes, total: total, rate: rate, remaining: remaining) + "\u{1b}[K"
            }
            let decile = Int((fraction * 10).rounded(.down))
            guard decile > s.lastDecile else { return nil }
            s.lastDecile = decile
            return "\(label): \(decile * 10)% (\(bytes)/\(total) bytes, \(Format.rate(rate)), ETA \(Format.clock(remaining)))\n"
        }
        if let line { Console.write(line, to: fd) }
    }

    /// Shows an upload's progress, with the engine's current throughput.
    func update(_ progress: UploadProgress) {
        update(bytes: progress.bytesSent, total: progress.totalBytes, rate: progress.currentBytesPerSecond)
    }

    /// Ends the display (a newline after a bar).
    func finish() {
        let drewBar = state.withLock { s -> Bool in
            defer { s.finished = true }
            return s.drewBar && !s.finished
        }
        if drewBar { Console.write("\n", to: fd) }
    }

    private func bar(fraction: Double, bytes: Int, total: Int, rate: Double, remaining: Double) -> String {
        let width = 30
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = Format.right("\(Int((fraction * 100).rounded(.down)))%", 4)
        return "\(label) [\(bar)] \(percent)  \(Format.size(Double(bytes)))/\(Format.size(Double(total)))  \(Format.rate(rate))  ETA \(Format.clock(remaining))"
    }
}
