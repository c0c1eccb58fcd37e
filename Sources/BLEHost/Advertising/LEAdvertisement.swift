import GATT

/// What a peripheral advertises while it waits for a central (``LEHost/accept(advertising:)``):
/// connectable, scannable, undirected legacy advertising (`ADV_IND`) on all three channels.
public struct LEAdvertisement: Sendable, Hashable {
    /// The advertising data (at most 31 bytes).
    public var data: AdvertisingData
    /// The scan response data sent to active scanners (at most 31 bytes).
    public var scanResponse: AdvertisingData
    /// The shortest advertising interval, in units of 0.625 ms (0x0020, 20 ms, to 0x4000).
    public var minimumInterval: UInt16
    /// The longest advertising interval, in units of 0.625 ms.
    public var maximumInterval: UInt16

    /// Makes an advertisement; by default every 30 to 60 ms (what Zephyr calls "fast advertising 2").
    public init(data: AdvertisingData, scanResponse: AdvertisingData = AdvertisingData([]), minimumInterval: UInt16 = 0x0030, maximumInterval: UInt16 = 0x0060) {
        self.data = data
        self.scanResponse = scanResponse
        self.minimumInterval = minimumInterval
        self.maximumInterval = maximumInterval
    }

    /// A peripheral offering `services` under `name`: the flags (general discoverable, LE only), the
    /// services and as much of the name as fits in the advertisement; the whole name in the scan response.
    public init(services: [BluetoothUUID], name: String) {
        self.init(data: .advertisement(services: services, name: name), scanResponse: .scanResponse(name: name))
    }

    /// Whether the data fit legacy advertising and the intervals are within the spec's range, in order.
    public var isValid: Bool {
        data.bytes.count <= AdvertisingData.legacyCapacity && scanResponse.bytes.count <= AdvertisingData.legacyCapacity
            && (0x0020...0x4000).contains(minimumInterval) && (minimumInterval...0x4000).contains(maximumInterval)
    }
}
