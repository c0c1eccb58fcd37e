import GATT

extension AdvertisingData {
    /// The most bytes a legacy advertisement or scan response carries.
    public static let legacyCapacity = 31

    /// The Flags value of an LE-only device that wants to be found: LE General Discoverable Mode
    /// and BR/EDR Not Supported (BlueZ's discovery ignores an advertiser without a discoverable flag).
    public static let generalDiscoverableLEOnly: UInt8 = 0x06

    /// Data made of AD structures (type and value) in order; nil when they take more than `capacity` bytes.
    public init?(structures: [(type: UInt8, value: [UInt8])], capacity: Int = legacyCapacity) {
        var bytes: [UInt8] = []
        for structure in structures {
            guard structure.value.count < 255 else { return nil }
            bytes += [UInt8(structure.value.count + 1), structure.type] + structure.value
        }
        guard bytes.count <= capacity else { return nil }
        self.init(bytes)
    }

    /// A peripheral's advertisement: `flags`, then the complete list of `services` (16-bit and
    /// 128-bit), then as much of `name` as still fits (a shortened name when cut, none when no
    /// character fits). Services that do not fit are left out.
    public static func advertisement(
        flags: UInt8 = generalDiscoverableLEOnly, services: [BluetoothUUID], name: String?
    ) -> AdvertisingData {
        var structures: [(type: UInt8, value: [UInt8])] = [(0x01, [flags])]
        let short = services.filter { $0.shortValue != nil }.flatMap(\.littleEndianBytes)
        let long = services.filter { $0.shortValue == nil }.flatMap(\.littleEndianBytes)
        for (type, value) in [(UInt8(0x03), short), (UInt8(0x07), long)] where !value.isEmpty {
            guard AdvertisingData(structures: structures + [(type, value)]) != nil else { continue }
            structures.append((type, value))
        }
        let used = structures.reduce(0) { $0 + 2 + $1.value.count }
        if let name, let entry = nameStructure(name, room: legacyCapacity - used) { structures.append(entry) }
        return AdvertisingData(structures: structures) ?? AdvertisingData([])
    }

    /// A scan response with `name`: the complete local name, or the shortened one when it takes more than 29 bytes.
    public static func scanResponse(name: String) -> AdvertisingData {
        nameStructure(name, room: legacyCapacity).flatMap { AdvertisingData(structures: [$0]) } ?? AdvertisingData([])
    }

    /// The local name as one AD structure of at most `room` bytes: complete (0x09) when it fits,
    /// else shortened (0x08) at a character boundary; nil when not one character fits.
    static func nameStructure(_ name: String, room: Int) -> (type: UInt8, value: [UInt8])? {
        let space = room - 2
        guard space > 0, !name.isEmpty else { return nil }
        let whole = Array(name.utf8)
        if whole.count <= space { return (0x09, whole) }
        var cut: [UInt8] = []
        for character in name {
            let next = Array(String(character).utf8)
            guard cut.count + next.count <= space else { break }
            cut += next
        }
        return cut.isEmpty ? nil : (0x08, cut)
    }
}
