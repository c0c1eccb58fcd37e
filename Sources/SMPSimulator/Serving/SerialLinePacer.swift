import SMP

/// One direction of a modelled UART: 8N1 carries 10 bits a byte, so `baudRate / 10` bytes a second.
///
/// Bytes are booked back to back on the wire; ``reserve(_:continuing:)`` says when the last of
/// them is through, measured on the pacer's clock. Without a baud rate the line is instant.
///
/// Bytes that follow others without a pause (waiting behind them, or the rest of one packet)
/// continue the stream: they are booked from the end of those, not from the moment the pacer got
/// to them, so a late wake-up (a VM wakes 0.2–0.5 ms late) does not slow the modelled line down
/// chunk after chunk.
public struct SerialLinePacer: Sendable {
    /// Bits per byte on an 8N1 line: start bit, 8 data bits, stop bit.
    public static let bitsPerByte = 10

    /// The modelled baud rate; nil for an instant line.
    public let baudRate: Int?
    /// The clock the line is timed on.
    public let clock: SMPClock
    private var wireFree: SMPInstant

    /// Makes a line of `baudRate` (nil or 0: instant), free from now on.
    public init(baudRate: Int?, clock: SMPClock) {
        self.baudRate = baudRate.flatMap { $0 > 0 ? $0 : nil }
        self.clock = clock
        self.wireFree = clock.now
    }

    /// Bytes handled at once: about 5 ms of the line (at least 16 bytes), or 4 KiB when instant.
    public var chunkSize: Int {
        guard let baudRate else { return 4096 }
        return max(16, baudRate / Self.bitsPerByte / 200)
    }

    /// The time `count` bytes take on a line of `baudRate`.
    public static func duration(of count: Int, baudRate: Int) -> Duration {
        .nanoseconds(Int64(count) * Int64(bitsPerByte) * 1_000_000_000 / Int64(baudRate))
    }

    /// Books `count` bytes after those already on the wire; returns when they are through, or nil
    /// when the line is instant. `continuing`: the bytes were already waiting behind the previous
    /// ones (a stream, as a UART's FIFO fills while the device works), so they follow them on the
    /// wire even when the pacer comes to them late; otherwise they start now at the earliest.
    public mutating func reserve(_ count: Int, continuing: Bool = false) -> SMPInstant? {
        guard let baudRate else { return nil }
        let start = continuing ? wireFree : max(clock.now, wireFree)
        wireFree = start + Self.duration(of: count, baudRate: baudRate)
        return wireFree
    }

    /// Books `count` bytes (see ``reserve(_:continuing:)``) and waits until they are through.
    public mutating func pass(_ count: Int, continuing: Bool = false) async {
        guard let done = reserve(count, continuing: continuing) else { return }
        try? await clock.sleepExactly(until: done)
    }
}
