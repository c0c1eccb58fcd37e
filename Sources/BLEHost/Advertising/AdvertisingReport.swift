/// One report of an HCI LE Advertising Report event (Core spec Vol 4 Part E 7.7.65.2).
public struct AdvertisingReport: Sendable, Hashable {
    /// The legacy advertising PDU types a report names.
    public enum EventType: UInt8, Sendable, Hashable {
        /// Connectable, scannable, undirected (`ADV_IND`).
        case connectable = 0x00
        /// Connectable, directed (`ADV_DIRECT_IND`).
        case directed = 0x01
        /// Scannable, not connectable (`ADV_SCAN_IND`).
        case scannable = 0x02
        /// Neither (`ADV_NONCONN_IND`).
        case nonConnectable = 0x03
        /// A scan response (`SCAN_RSP`).
        case scanResponse = 0x04
    }

    /// The PDU type; nil for a value the spec reserves.
    public var eventType: EventType?
    /// The advertiser's address.
    public var address: LEAddress
    /// The advertising data or scan response data.
    public var data: AdvertisingData
    /// Received signal strength in dBm; nil when the controller has none (127).
    public var rssi: Int?

    /// Makes a report.
    public init(eventType: EventType?, address: LEAddress, data: AdvertisingData, rssi: Int?) {
        self.eventType = eventType
        self.address = address
        self.data = data
        self.rssi = rssi
    }

    /// Reads the reports of an LE Advertising Report subevent (`parameters` after the subevent
    /// code: count, then each report). Reports are laid out one after another, as BlueZ, Zephyr
    /// and bumble read and write them. Throws on the first report that runs past the end.
    public static func decodeAll(_ parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> [AdvertisingReport] {
        var reader = ByteReader(parameters, what: "LE Advertising Report")
        let count = Int(try reader.u8())
        var reports: [AdvertisingReport] = []
        for _ in 0..<count {
            let type = try reader.u8()
            let kind: LEAddress.Kind = try reader.u8() & 0x01 == 0 ? .public : .random
            let address = LEAddress(wire: try reader.bytes(6), kind: kind)
            let length = Int(try reader.u8())
            guard length <= reader.remaining else {
                throw .lengthPastEnd(what: "advertising data", length: length, available: reader.remaining)
            }
            let data = AdvertisingData(Array(try reader.bytes(length)))
            let rssi = Int8(bitPattern: try reader.u8())
            reports.append(AdvertisingReport(eventType: EventType(rawValue: type), address: address, data: data, rssi: rssi == 127 ? nil : Int(rssi)))
        }
        return reports
    }
}
