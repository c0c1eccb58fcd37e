/// One request the device saw, for the request log.
public struct RequestRecord: Sendable, Hashable, CustomStringConvertible {
    /// What became of a request.
    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// Answered with success.
        case success
        /// Answered with an SMP-level status `{"rc": n}`.
        case status(Int)
        /// Answered with a group error (v2 `err`, or its v1 translation).
        case groupError(group: UInt16, rc: Int)
        /// Not answered: dropped by the link model, a fault, or a reboot.
        case dropped(String)

        /// A short text, e.g. `ok`, `rc=8`, `err=1/9`, `dropped (fault)`.
        public var description: String {
            switch self {
            case .success: return "ok"
            case .status(let rc): return "rc=\(rc)"
            case .groupError(let group, let rc): return "err=\(group)/\(rc)"
            case .dropped(let why): return "dropped (\(why))"
            }
        }
    }

    /// Time since the simulator started.
    public let time: Duration
    /// The transport it arrived on.
    public let transport: Int
    /// Protocol version bits (0 = v1, 1 = v2).
    public let version: UInt8
    /// Operation bits (0 read, 2 write).
    public let operation: UInt8
    /// Group id.
    public let group: UInt16
    /// Command id.
    public let command: UInt8
    /// Sequence number.
    public let sequence: UInt8
    /// Payload length from the header.
    public let length: Int
    /// What the device did with it.
    public let outcome: Outcome

    /// The record of a request with `header`; without one (a packet under 8 bytes), zeros and the packet's length.
    init(time: Duration, transport: Int, header: RequestHeader?, packetLength: Int, outcome: Outcome) {
        self.time = time
        self.transport = transport
        version = header?.version ?? 0
        operation = header?.operation ?? 0
        group = header?.group ?? 0
        command = header?.command ?? 0
        sequence = header?.sequence ?? 0
        length = header?.length ?? packetLength
        self.outcome = outcome
    }

    /// One line: time, sequence, version, operation, group, command, length, outcome.
    public var description: String {
        let ms = time.wholeMilliseconds
        let op = operation == 0 ? "read" : operation == 2 ? "write" : "op\(operation)"
        return "+\(ms)ms seq=\(sequence) v\(version + 1) \(op) group=\(group) cmd=\(command) len=\(length) -> \(outcome)"
    }
}
