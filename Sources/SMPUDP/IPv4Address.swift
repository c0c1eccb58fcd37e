import Glibc

/// A dotted-quad IPv4 address as a number, to count consecutive addresses: a fleet's devices
/// on `127.0.0.2`, `127.0.0.3`, … (`mcumgr fleet --udp-range`, `mcumgr-sim --devices`).
public struct IPv4Address: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The address, most significant byte first (`1.2.3.4` is `0x0102_0304`).
    public let value: UInt32

    /// Makes an address from its number.
    public init(value: UInt32) {
        self.value = value
    }

    /// Parses four decimal bytes separated by dots (`127.0.0.2`, as `inet_pton` reads them); nil
    /// for anything else.
    public init?(_ text: String) {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        self.value = UInt32(bigEndian: address.s_addr)
    }

    /// The address `count` further on; nil past `255.255.255.255` (or below `0.0.0.0`).
    public func advanced(by count: Int) -> IPv4Address? {
        let next = Int64(value) + Int64(count)
        guard let value = UInt32(exactly: next) else { return nil }
        return IPv4Address(value: value)
    }

    /// The dotted text.
    public var description: String {
        var address = in_addr(s_addr: value.bigEndian)
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        _ = inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Orders addresses by their number.
    public static func < (lhs: IPv4Address, rhs: IPv4Address) -> Bool { lhs.value < rhs.value }
}
