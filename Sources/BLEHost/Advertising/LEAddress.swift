/// A Bluetooth LE device address and its type, as HCI carries it.
public struct LEAddress: Hashable, Sendable, CustomStringConvertible {
    /// Public (IEEE-assigned) or random (static or private) address.
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// A public device address (HCI address type 0x00).
        case `public` = 0x00
        /// A random device address (HCI address type 0x01).
        case random = 0x01

        /// `public` or `random`.
        public var description: String { self == .public ? "public" : "random" }
    }

    /// The six bytes, most significant first (as written: `AA:BB:…` is `[0xAA, 0xBB, …]`).
    public let bytes: [UInt8]
    /// The address type.
    public var kind: Kind

    /// Parses `AA:BB:CC:DD:EE:FF`; nil for anything else.
    public init?(_ text: String, kind: Kind = .public) {
        let groups = text.split(separator: ":", omittingEmptySubsequences: false)
        guard groups.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for group in groups {
            guard group.count == 2, let byte = UInt8(group, radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.bytes = bytes
        self.kind = kind
    }

    /// Makes an address from six bytes, most significant first; nil for another count.
    public init?(bytes: [UInt8], kind: Kind) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
        self.kind = kind
    }

    /// Reads the six little-endian bytes HCI carries (least significant first).
    init(wire: ArraySlice<UInt8>, kind: Kind) {
        self.bytes = Array(wire.reversed())
        self.kind = kind
    }

    /// The six bytes in HCI's order (least significant first).
    public var wireBytes: [UInt8] { bytes.reversed() }

    /// A static random address (the two top bits set) from `random`'s bytes.
    public static func staticRandom(using generator: inout some RandomNumberGenerator) -> LEAddress {
        var bytes = (0..<6).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[0] |= 0xC0
        if bytes[1...] == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF] || bytes[1...].allSatisfy({ $0 == 0 }) { bytes[5] = 0x5A }
        return LEAddress(bytes: bytes, kind: .random)!
    }

    /// `AA:BB:CC:DD:EE:FF`.
    public var string: String { bytes.map { hex($0) }.joined(separator: ":") }

    /// `AA:BB:CC:DD:EE:FF (random)`.
    public var description: String { "\(string) (\(kind))" }
}
