import BLEHost
import GATT
import Testing

@Suite("A peripheral's advertising: AD structures and the HCI commands that carry them")
struct AdvertisingTests {
    static let smp = BluetoothUUID(string: "8D53DC1D-1DB7-4CD3-868B-8A527460AA84")!

    @Test("flags (general discoverable, LE only), the complete 128-bit service list and the complete name, in 31 bytes")
    func advertisement() {
        let data = AdvertisingData.advertisement(services: [Self.smp], name: "smp-sim")
        #expect(data.bytes == [0x02, 0x01, 0x06, 0x11, 0x07] + Self.smp.littleEndianBytes + [0x08, 0x09] + Array("smp-sim".utf8))
        #expect(data.bytes.count == 30)
        // What a scanner reads back (ours, BlueZ's: the same AD structures).
        #expect(data.flags == 0x06)
        #expect(data.serviceUUIDs == [Self.smp])
        #expect(data.localName == "smp-sim" && data.hasCompleteName)
    }

    @Test("a name that does not fit after the service list is shortened at a character boundary; the scan response carries it whole")
    func longName() {
        let name = "a-rather-long-név"
        let data = AdvertisingData.advertisement(services: [Self.smp], name: name)
        #expect(data.bytes.count <= 31)
        #expect(!data.hasCompleteName)
        // 10 bytes are left: a 2-byte header and 8 bytes of name.
        #expect(data.localName == "a-rather")
        let response = AdvertisingData.scanResponse(name: name)
        #expect(response.localName == name && response.hasCompleteName)
        // "é" takes two bytes: a cut never splits it.
        let cut = AdvertisingData.scanResponse(name: String(repeating: "x", count: 28) + "é")
        #expect(cut.localName == String(repeating: "x", count: 28) && !cut.hasCompleteName)
    }

    @Test("16-bit and 128-bit services go in their own lists; data that cannot fit is refused")
    func structures() {
        let data = AdvertisingData.advertisement(services: [BluetoothUUID(0x180D), Self.smp], name: nil)
        #expect(data.serviceUUIDs == [BluetoothUUID(0x180D), Self.smp])
        #expect(Array(data.bytes[3...6]) == [0x03, 0x03, 0x0D, 0x18])
        #expect(AdvertisingData(structures: [(0xFF, [UInt8](repeating: 0, count: 30))]) == nil)
        #expect(AdvertisingData(structures: [(0xFF, [UInt8](repeating: 0, count: 29))])?.bytes.count == 31)
        #expect(LEAdvertisement(services: [Self.smp], name: "x").isValid)
        #expect(!LEAdvertisement(data: AdvertisingData([UInt8](repeating: 0, count: 32))).isValid)
        #expect(!LEAdvertisement(data: data, minimumInterval: 0x0010).isValid)
    }

    @Test("the legacy advertising commands' parameters, byte for byte (Core spec Vol 4 Part E 7.8.5 to 7.8.9)")
    func commands() {
        let parameters = HCICommand.leSetAdvertisingParameters(minimumInterval: 0x0030, maximumInterval: 0x0060, ownAddress: .random)
        #expect(parameters.opcode == 0x2006)
        #expect(parameters.parameters == [0x30, 0x00, 0x60, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x00])
        let data = HCICommand.leSetAdvertisingData(AdvertisingData([0x02, 0x01, 0x06]))
        #expect(data.opcode == 0x2008)
        #expect(data.parameters == [0x03, 0x02, 0x01, 0x06] + [UInt8](repeating: 0, count: 28))
        #expect(HCICommand.leSetScanResponseData(AdvertisingData([])).parameters == [UInt8](repeating: 0, count: 32))
        #expect(HCICommand.leSetScanResponseData(AdvertisingData([])).opcode == 0x2009)
        #expect(HCICommand.leSetAdvertisingEnable(true).parameters == [1])
        #expect(HCICommand.leSetAdvertisingEnable(false).opcode == 0x200A)
        #expect(HCICommand.leSetAdvertisingEnable(true).description == "LE Set Advertising Enable (0x200A)")
    }

    @Test("a peripheral rejects a Connection Parameter Update Request (only a peripheral sends one); a central answers it")
    func parameterUpdateByRole() {
        let request = L2CAPSignal(code: 0x12, identifier: 7, data: [0x06, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x90, 0x01])
        #expect(request.reply(asCentral: false) == .respond(L2CAPSignal.reject(7, reason: 0x0000), update: nil))
        guard case .respond(let response, let update) = request.reply() else {
            Issue.record("a central did not answer")
            return
        }
        #expect(response.code == 0x13 && response.data == [0x00, 0x00])
        #expect(update?.maximumInterval == 12)
    }
}
