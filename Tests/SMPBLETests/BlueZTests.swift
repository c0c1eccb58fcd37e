import BLEHost
import Foundation
import GATT
import Hex
import SMP
@testable import SMPBLE
import SMPTestSupport
import Testing
import Glibc

/// Whether this kernel lacks Bluetooth (AF_BLUETOOTH sockets fail with EAFNOSUPPORT), as here.
let kernelLacksBluetooth: Bool = {
    let fd = socket(31, Int32(SOCK_RAW.rawValue), 1)
    if fd >= 0 {
        close(fd)
        return false
    }
    return errno == EAFNOSUPPORT
}()

@Suite("BlueZ path: addresses, errors, advertising reports")
struct BlueZTests {
    @Test("connecting without Bluetooth in the kernel fails at once, saying Bluetooth is not available",
          .enabled(if: kernelLacksBluetooth, "this kernel has Bluetooth"))
    func connectWithoutBluetooth() async throws {
        let address = try #require(BluetoothDeviceAddress("AA:BB:CC:DD:EE:FF"))
        let started = ContinuousClock.now
        for (adapter, security) in [(nil, BLESecurityLevel.low), ("hci0", .high), ("00:1A:7D:DA:71:13", .medium)] {
            do {
                _ = try await BLEConnector.bluez(address: address, adapter: adapter, security: security).makeBearer()
                Issue.record("connected without Bluetooth")
            } catch {
                guard case .bluetoothUnavailable(let message) = error else {
                    Issue.record("expected bluetoothUnavailable, got \(error)")
                    continue
                }
                #expect(message.contains("Bluetooth is not available"))
            }
        }
        let transport = BLETransport(connector: .bluez(address: address))
        do {
            try await transport.connect()
            Issue.record("connected without Bluetooth")
        } catch {
            guard case .unreachable(let message) = error else {
                Issue.record("expected unreachable, got \(error)")
                return
            }
            #expect(message.contains("Bluetooth is not available"))
        }
        await transport.close()
        print("BlueZ connect attempts without Bluetooth failed after \(ContinuousClock.now - started)")
    }

    @Test("scanning without Bluetooth in the kernel fails the same way", .enabled(if: kernelLacksBluetooth, "this kernel has Bluetooth"))
    func scanWithoutBluetooth() async throws {
        await #expect(throws: BLEError.self) { try await BLEScanner.scan(duration: .seconds(1)) }
        do {
            _ = try await BLEScanner.scan(adapter: "hci0", duration: .seconds(1))
        } catch {
            #expect(error.description.contains("Bluetooth is not available"))
        }
    }

    @Test("every errno a BlueZ call gives maps to a message a user can act on")
    func errnoMapping() {
        #expect(BLEError.from(errno: EAFNOSUPPORT, while: "x") == .bluetoothUnavailable(
            "Bluetooth is not available: this kernel has no Bluetooth support (x: address family not supported)"))
        guard case .noAdapter = BLEError.from(errno: ENODEV, while: "x"),
            case .permissionDenied(let permission) = BLEError.from(errno: EPERM, while: "x"),
            case .permissionDenied = BLEError.from(errno: EACCES, while: "x"),
            case .hostDown(let down) = BLEError.from(errno: EHOSTDOWN, while: "x"),
            case .timeout = BLEError.from(errno: ETIMEDOUT, while: "x"),
            case .refused = BLEError.from(errno: ECONNREFUSED, while: "x"),
            case .io(let other) = BLEError.from(errno: EINVAL, while: "binding")
        else {
            Issue.record("an errno maps to the wrong error")
            return
        }
        #expect(permission.contains("CAP_NET_RAW"))
        #expect(down.contains("advertising"))
        #expect(other.contains("binding failed"))
    }

    @Test func addressesParseAndConvert() throws {
        let address = try #require(BluetoothDeviceAddress("c0:11:22:33:44:55", type: .random))
        #expect(address.string == "C0:11:22:33:44:55")
        #expect(address.description == "C0:11:22:33:44:55 (random)")
        #expect(BluetoothDeviceAddress("C0-11-22-33-44-55") == BluetoothDeviceAddress("C0:11:22:33:44:55"))
        // BlueZ keeps the least significant byte first.
        let raw = withUnsafeBytes(of: address.bdaddr.b) { Array($0) }
        #expect(raw == [0x55, 0x44, 0x33, 0x22, 0x11, 0xC0])
        #expect(BluetoothDeviceAddress(bdaddr: address.bdaddr, type: .random) == address)
        for bad in ["", "C0:11:22:33:44", "C0:11:22:33:44:55:66", "G0:11:22:33:44:55", "C011:22:33:44:55:6"] {
            #expect(BluetoothDeviceAddress(bad) == nil)
        }
    }

    /// bumble encodes HCI LE Advertising Report events; our parser must read them.
    static let bumbleScript = #"""
        import json
        from bumble import hci
        from bumble.core import AdvertisingData, UUID
        smp = UUID("8D53DC1D-1DB7-4CD3-868B-8A527460AA84")
        R = hci.HCI_LE_Advertising_Report_Event.Report
        a = hci.Address("C0:11:22:33:44:55", hci.Address.RANDOM_DEVICE_ADDRESS)
        b = hci.Address("00:1A:7D:DA:71:13", hci.Address.PUBLIC_DEVICE_ADDRESS)
        adv = AdvertisingData([(AdvertisingData.FLAGS, bytes([6])), (AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS, smp.to_bytes())])
        rsp = AdvertisingData([(AdvertisingData.COMPLETE_LOCAL_NAME, "zephyr-smp".encode())])
        other = AdvertisingData([(AdvertisingData.COMPLETE_LOCAL_NAME, b"thermometer"), (AdvertisingData.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS, bytes([0x09, 0x18]))])
        events = [
            hci.HCI_LE_Advertising_Report_Event([R(event_type=0, address_type=1, address=a, data=bytes(adv), rssi=-70)]),
            hci.HCI_LE_Advertising_Report_Event([R(event_type=4, address_type=1, address=a, data=bytes(rsp), rssi=-58),
                                                 R(event_type=0, address_type=0, address=b, data=bytes(other), rssi=-40)]),
            hci.HCI_LE_Advertising_Report_Event([R(event_type=0, address_type=1, address=a, data=bytes(adv), rssi=-66)]),
        ]
        print(json.dumps([bytes(e).hex() for e in events]))
        """#

    @Test("advertising reports encoded by bumble, read from HCI socket packets, fold into each SMP device once, with its name and best RSSI")
    func advertisingReportsFromBumble() async throws {
        let output = try await Subprocess.python(Self.bumbleScript).stdout
        let packets = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String]).map(Self.bytes)
        let reports = packets.flatMap { HCISocketPackets.advertisingReports(in: $0) }
        #expect(reports.count == 4)
        #expect(reports[0].address == LEAddress("C0:11:22:33:44:55", kind: .random))
        #expect(reports[0].data.serviceUUIDs == [BLETransport.serviceUUID])
        #expect(reports[1].data.localName == "zephyr-smp")
        #expect(reports[2].address == LEAddress("00:1A:7D:DA:71:13", kind: .public))
        #expect(reports[2].rssi == -40)

        var collector = ScanCollector(service: BLETransport.serviceUUID)
        reports.forEach { collector.add($0) }
        #expect(collector.results.map(BLEScanResult.init) == [
            BLEScanResult(address: BluetoothDeviceAddress("C0:11:22:33:44:55", type: .random)!, name: "zephyr-smp", rssi: -58)
        ])
    }

    @Test("truncated or foreign HCI packets give no reports and never crash")
    func hostileHCIPackets() {
        let good = Self.bytes("043e33020200015544332211c015020106110784aa6074528a8b86d34cb71d1ddc538dc404015544332211c00807097a6570687972c9")
        #expect(HCISocketPackets.advertisingReports(in: good).count == 2)
        for cut in 0..<good.count {
            #expect(HCISocketPackets.advertisingReports(in: good.prefix(cut)).isEmpty)
        }
        // A report claiming 255 bytes of data, a count of 200 reports, another event, an ACL packet.
        #expect(HCISocketPackets.advertisingReports(in: [0x04, 0x3E, 0x0C, 0x02, 0x01, 0, 0, 1, 2, 3, 4, 5, 6, 0xFF, 0]).isEmpty)
        #expect(HCISocketPackets.advertisingReports(in: [0x04, 0x3E, 0x03, 0x02, 0xC8, 0]).isEmpty)
        #expect(HCISocketPackets.advertisingReports(in: [0x04, 0x0E, 0x04, 0x01, 0x0B, 0x20, 0x00]).isEmpty)
        #expect(HCISocketPackets.advertisingReports(in: [0x02, 0x41, 0x20, 0x01, 0x00, 0xAA]).isEmpty)
        let results = [LEScanResult(address: LEAddress("C0:11:22:33:44:55", kind: .random)!, name: nil, services: [], rssi: nil, connectable: true)]
        #expect(results.map(BLEScanResult.init) == [BLEScanResult(address: BluetoothDeviceAddress("C0:11:22:33:44:55", type: .random)!, name: nil, rssi: 127)])
    }

    static func bytes(_ hex: String) -> [UInt8] {
        [UInt8](hex: hex)!
    }
}
