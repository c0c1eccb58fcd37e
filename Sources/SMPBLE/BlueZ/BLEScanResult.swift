import GATT

/// One advertising report from an HCI LE Advertising Report event (Core spec Vol 4 Part E 7.7.65.2).
public struct AdvertisingReport: Sendable, Hashable {
    /// The advertiser's address.
    public var address: BluetoothDeviceAddress
    /// The PDU type (0 `ADV_IND` … 4 `SCAN_RSP`).
    public var eventType: UInt8
    /// The advertising data (AD structures).
    public var data: [UInt8]
    /// Received signal strength in dBm (127 when unavailable).
    public var rssi: Int

    /// Makes a report.
    public init(address: BluetoothDeviceAddress, eventType: UInt8, data: [UInt8], rssi: Int) {
        self.address = address
        self.eventType = eventType
        self.data = data
        self.rssi = rssi
    }

    /// Reads the reports of one HCI event packet as the HCI socket delivers it: the packet-type
    /// byte (0x04), event code 0x3E, length, subevent 0x02, report count, then each report as
    /// BlueZ lays it out (type, address type, address, length, data, RSSI). Anything else, or
    /// bytes that run short, gives no reports.
    public static func parse(hciEvent packet: [UInt8]) -> [AdvertisingReport] {
        guard packet.count >= 5, packet[0] == 0x04, packet[1] == 0x3E, packet[3] == 0x02 else { return [] }
        let end = min(packet.count, 3 + Int(packet[2]))
        var position = 5
        var reports: [AdvertisingReport] = []
        for _ in 0..<Int(packet[4]) {
            guard position + 9 <= end else { break }
            let eventType = packet[position]
            let addressType: BluetoothDeviceAddress.AddressType = packet[position + 1] & 0x01 == 0 ? .public : .random
            let address = BluetoothDeviceAddress(bytes: packet[(position + 2)..<(position + 8)].reversed(), type: addressType)
            let length = Int(packet[position + 8])
            guard position + 9 + length + 1 <= end else { break }
            let data = Array(packet[(position + 9)..<(position + 9 + length)])
            let rssi = Int(Int8(bitPattern: packet[position + 9 + length]))
            reports.append(AdvertisingReport(address: address, eventType: eventType, data: data, rssi: rssi))
            position += 9 + length + 1
        }
        return reports
    }

    /// The AD structures as (type, value) pairs; stops at a zero length or a structure that runs short.
    public var structures: [(type: UInt8, value: [UInt8])] {
        var result: [(type: UInt8, value: [UInt8])] = []
        var position = 0
        while position < data.count {
            let length = Int(data[position])
            guard length > 0, position + 1 + length <= data.count else { break }
            result.append((data[position + 1], Array(data[(position + 2)..<(position + 1 + length)])))
            position += 1 + length
        }
        return result
    }

    /// The complete (0x09) or shortened (0x08) local name.
    public var localName: String? {
        let names = structures.filter { $0.type == 0x09 || $0.type == 0x08 }
        guard let name = names.first(where: { $0.type == 0x09 }) ?? names.first else { return nil }
        return String(decoding: name.value, as: UTF8.self)
    }

    /// The 128-bit service UUIDs listed (complete 0x07 or incomplete 0x06).
    public var serviceUUIDs: [BluetoothUUID] {
        structures.filter { $0.type == 0x06 || $0.type == 0x07 }.flatMap { entry -> [BluetoothUUID] in
            stride(from: 0, to: entry.value.count - 15, by: 16).compactMap { BluetoothUUID(littleEndian: entry.value[$0..<($0 + 16)]) }
        }
    }
}

/// A device found by a scan.
public struct BLEScanResult: Sendable, Hashable {
    /// Its address and address type.
    public var address: BluetoothDeviceAddress
    /// Its local name, from the advertising data or the scan response, when it sent one.
    public var name: String?
    /// The strongest signal seen, in dBm.
    public var rssi: Int

    /// Makes a result.
    public init(address: BluetoothDeviceAddress, name: String?, rssi: Int) {
        self.address = address
        self.name = name
        self.rssi = rssi
    }
}

/// Folds advertising reports into one result per device advertising a given service.
struct ScanCollector: Sendable {
    let service: BluetoothUUID
    private var seen: [BluetoothDeviceAddress: (name: String?, rssi: Int, offers: Bool)] = [:]
    private var order: [BluetoothDeviceAddress] = []

    init(service: BluetoothUUID) {
        self.service = service
    }

    /// Takes one report (an advertisement or a scan response).
    mutating func add(_ report: AdvertisingReport) {
        var entry = seen[report.address] ?? (nil, Int.min, false)
        if entry.rssi == Int.min { order.append(report.address) }
        entry.name = report.localName ?? entry.name
        if report.rssi != 127 { entry.rssi = max(entry.rssi, report.rssi) }
        entry.offers = entry.offers || report.serviceUUIDs.contains(service)
        seen[report.address] = entry
    }

    /// Devices that advertised the service, in the order first seen.
    var results: [BLEScanResult] {
        order.compactMap { address in
            guard let entry = seen[address], entry.offers else { return nil }
            return BLEScanResult(address: address, name: entry.name, rssi: entry.rssi == Int.min ? 127 : entry.rssi)
        }
    }
}
