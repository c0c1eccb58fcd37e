import Hex

/// One line of a check's evidence: a packet sent, a packet received, or what happened between.
public struct ConformanceEvidence: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// What the line records.
    public enum Kind: String, Sendable, Hashable, Encodable {
        /// A packet sent to the device.
        case sent
        /// A packet received from the device.
        case received
        /// A remark: a wait that ended without an answer, a reconnection, a reset.
        case note
    }

    /// What the line records.
    public let kind: Kind
    /// The packet in hex (cut after ``hexLimit`` bytes), or the remark.
    public let text: String

    /// Bytes of a packet shown in full; longer ones are cut and their length given.
    public static let hexLimit = 48

    /// A packet line.
    init(_ kind: Kind, bytes: [UInt8]) {
        self.kind = kind
        let shown = bytes.prefix(Self.hexLimit).hexString
        text = bytes.count > Self.hexLimit ? "\(shown)… (\(bytes.count) bytes)" : shown
    }

    /// A remark.
    init(note: String) {
        kind = .note
        text = note
    }

    /// `-> 0a00…`, `<- 0b00…` or `-- remark`.
    public var description: String {
        switch kind {
        case .sent: return "-> \(text)"
        case .received: return "<- \(text)"
        case .note: return "-- \(text)"
        }
    }
}
