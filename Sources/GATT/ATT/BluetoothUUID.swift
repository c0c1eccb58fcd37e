/// A Bluetooth UUID: a 16-bit assigned number or a full 128-bit UUID.
///
/// A 128-bit UUID built on the Bluetooth Base UUID (`0000xxxx-0000-1000-8000-00805F9B34FB`) equals
/// its 16-bit form. On the wire UUIDs are little-endian; ``bytes`` is the canonical (big-endian) order.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes in canonical order (as written in the string form).
    public let bytes: [UInt8]

    private static let base: [UInt8] = [0, 0, 0, 0, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34, 0xFB]

    /// A 16-bit assigned number, e.g. `0x2902` for the Client Characteristic Configuration.
    public init(_ short: UInt16) {
        var bytes = Self.base
        bytes[2] = UInt8(short >> 8)
        bytes[3] = UInt8(short & 0xFF)
        self.init(canonical: bytes)
    }

    /// Parses `8D53DC1D-1DB7-4CD3-868B-8A527460AA84`, `2902` or `0x2902`; nil for anything else.
    public init?(string: String) {
        var text = Substring(string)
        if text.hasPrefix("0x") || text.hasPrefix("0X") { text = text.dropFirst(2) }
        if text.count == 4, let short = UInt16(text, radix: 16) {
            self.init(short)
            return
        }
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
        let hex = groups.joined()
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.init(canonical: bytes)
    }

    private init(canonical: [UInt8]) {
        self.bytes = canonical
    }

    /// Reads a UUID in wire order (2 or 16 little-endian bytes); nil for any other length.
    public init?(littleEndian wire: some Collection<UInt8>) {
        switch wire.count {
        case 2:
            let b = Array(wire)
            self.init(UInt16(b[0]) | UInt16(b[1]) << 8)
        case 16:
            self.init(canonical: wire.reversed())
        default:
            return nil
        }
    }

    /// The 16-bit form when the UUID is built on the Bluetooth Base UUID.
    public var shortValue: UInt16? {
        guard bytes[0] == 0, bytes[1] == 0, Array(bytes[4...]) == Array(Self.base[4...]) else { return nil }
        return UInt16(bytes[2]) << 8 | UInt16(bytes[3])
    }

    /// Wire form: 2 bytes for a 16-bit UUID, else 16, little-endian.
    public var littleEndianBytes: [UInt8] {
        if let short = shortValue { return [UInt8(short & 0xFF), UInt8(short >> 8)] }
        return bytes.reversed()
    }

    /// `0x2902` for a 16-bit UUID, else the upper-case 8-4-4-4-12 form.
    public var description: String {
        if let short = shortValue {
            let hex = String(short, radix: 16, uppercase: true)
            return "0x" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        let hex = bytes.map { byte -> String in
            let text = String(byte, radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }.joined()
        var result = ""
        for (position, character) in hex.enumerated() {
            if [8, 12, 16, 20].contains(position) { result.append("-") }
            result.append(character)
        }
        return result
    }

    /// Primary Service declaration (0x2800).
    public static let primaryService = BluetoothUUID(0x2800)
    /// Secondary Service declaration (0x2801).
    public static let secondaryService = BluetoothUUID(0x2801)
    /// Include declaration (0x2802).
    public static let include = BluetoothUUID(0x2802)
    /// Characteristic declaration (0x2803).
    public static let characteristic = BluetoothUUID(0x2803)
    /// Client Characteristic Configuration descriptor (0x2902).
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
    /// Generic Access service (0x1800).
    public static let genericAccess = BluetoothUUID(0x1800)
    /// Device Name characteristic (0x2A00).
    public static let deviceName = BluetoothUUID(0x2A00)
}
