/// A dotted-quad IPv4 address as a number, to count consecutive addresses: a fleet's devices
/// on `127.0.0.2`, `127.0.0.3`, … (`mcumgr fleet --udp-range`, `mcumgr-sim --devices`).
public struct IPv4Address: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The address, most significant byte first (`1.2.3.4` is `0x0102_0304`).
    public let value: UInt32

    /// Makes an address from its number.
    public init(value: UInt32) {
        self.value = value
    }

    /// Parses four decimal bytes separated by dots (`127.0.0.2`); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }), let byte = UInt8(part) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        self.value = value
    }

    /// The address `count` further on; nil past `255.255.255.255` (or below `0.0.0.0`).
    public func advanced(by count: Int) -> IPv4Address? {
        let next = Int64(value) + Int64(count)
        guard let value = UInt32(exactly: next) else { return nil }
        return IPv4Address(value: value)
    }

    /// The dotted text.
    public var description: String { [24, 16, 8, 0].map { String(value >> UInt32($0) & 0xff) }.joined(separator: ".") }

    /// Orders addresses by their number.
    public static func < (lhs: IPv4Address, rhs: IPv4Address) -> Bool { lhs.value < rhs.value }
}
