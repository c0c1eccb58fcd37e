/// A Bluetooth LE device address (`AA:BB:CC:DD:EE:FF`) and its type.
public struct BluetoothDeviceAddress: Hashable, Sendable, CustomStringConvertible {
    /// Public (IEEE-assigned) or random (static or private) address.
    public enum AddressType: String, Sendable, Hashable, CaseIterable {
        /// A public device address.
        case `public`
        /// A random device address (static or resolvable private).
        case random

        /// BlueZ's `BDADDR_LE_PUBLIC` (1) or `BDADDR_LE_RANDOM` (2).
        var bluezValue: UInt8 { self == .public ? 0x01 : 0x02 }
    }

    /// The six bytes, most significant first (as written).
    public let bytes: [UInt8]
    /// The address type.
    public var type: AddressType

    /// Parses `AA:BB:CC:DD:EE:FF` (or with `-`); nil for anything else.
    public init?(_ text: String, type: AddressType = .public) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let groups = parts.count == 6 ? parts : text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.count == 6, groups.allSatisfy({ $0.count == 2 }) else { return nil }
        var bytes: [UInt8] = []
        for group in groups {
            guard let byte = UInt8(group, radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.bytes = bytes
        self.type = type
    }

    /// Makes an address from six bytes, most significant first.
    public init(bytes: [UInt8], type: AddressType) {
        precondition(bytes.count == 6, "a Bluetooth device address has six bytes")
        self.bytes = bytes
        self.type = type
    }

    /// `AA:BB:CC:DD:EE:FF`.
    public var string: String {
        bytes.map { byte -> String in
            let text = String(byte, radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }.joined(separator: ":")
    }

    /// `AA:BB:CC:DD:EE:FF (random)`.
    public var description: String { "\(string) (\(type.rawValue))" }
}
