import Foundation
import McuMgrFleet
import McuMgrConnection
import McuMgrTools
import SMPUDP
import Testing

/// The devices file and UDP ranges.
@Suite("Fleet devices file and UDP ranges")
struct FleetDeviceListTests {
    @Test("every line form: udp:HOST[:PORT], TYPE:CONNSTRING, type= connstring=, profile=, names, quotes, comments")
    func lineForms() throws {
        let text = """
            # bench rack
            udp:127.0.0.2:1337            left-1
            udp:127.0.0.3                 # port 1337 by default, no name

            udp:[::1]:1338                name=v6
            type=udp connstring=[192.0.2.7]:1337 gateway
            connstring=192.0.2.8:1400     # type udp by default
            serial:dev=/dev/ttyACM0,baud=115200   desk
            type=ble connstring="peer_name=Zephyr SMP,ctlr_name=hci1"  "kitchen sensor"
            profile=bench
            sim-one sim                   # the name may come first
            """
        let devices = try FleetDeviceList.parse(text)
        #expect(devices.map(\.index) == Array(0..<9))
        #expect(devices.map(\.name) == ["left-1", nil, "v6", "gateway", nil, "desk", "kitchen sensor", nil, "sim-one"])
        #expect(devices[0].target == .spec(.udp(UDPEndpoint(host: "127.0.0.2", port: 1337))))
        #expect(devices[1].target == .spec(.udp(UDPEndpoint(host: "127.0.0.3", port: 1337))))
        #expect(devices[2].target == .spec(.udp(UDPEndpoint(host: "::1", port: 1338))))
        #expect(devices[3].target == .spec(.udp(UDPEndpoint(host: "192.0.2.7", port: 1337))))
        #expect(devices[4].target == .spec(.udp(UDPEndpoint(host: "192.0.2.8", port: 1400))))
        #expect(devices[5].target == .spec(.serial(SerialConnectionParameters(device: "/dev/ttyACM0", baudRate: 115_200))))
        #expect(devices[6].target == .spec(.ble(BLEConnectionParameters(peer: .name("Zephyr SMP"), adapter: "hci1"))))
        #expect(devices[7].target == .profile("bench"))
        #expect(devices[8].target == .spec(.simulator))
        #expect(devices[1].label == "udp:127.0.0.3:1337")
        #expect(devices[7].label == "profile:bench")
        // A device written back as a line reads again as itself.
        let written = devices.map(\.devicesFileLine)
        #expect(written[6] == "\"ble:peer_name=Zephyr SMP,ctlr_name=hci1\" \"kitchen sensor\"")
        #expect(try FleetDeviceList.parse(written.joined(separator: "\n")) == devices)
    }

    @Test("bad lines are refused with the line number and what is wrong", arguments: [
        ("udp:127.0.0.2 a b", "line 1", "neither a connection"),
        ("left-1", "line 1", "no connection"),
        ("udp:127.0.0.2 name=x y", "line 1", "two names"),
        ("profile=bench udp:127.0.0.2", "line 1", "two connections"),
        ("udp:127.0.0.2 udp:127.0.0.3", "line 1", "two connections"),
        ("type=udp connstring=host:99999", "line 1", "udp"),
        ("udp:[::1", "line 1", "[::1"),
        ("\n\ntype=tcp connstring=x", "line 3", "tcp"),
        ("udp:127.0.0.2 \"open", "line 1", "double quote"),
        ("serial:baud=9600", "line 1", "dev"),
        ("profile=", "line 1", "profile name"),
        ("udp:1.2.3.4 name=a name=b", "line 1", "twice"),
    ])
    func badLines(text: String, line: String, reason: String) {
        do {
            _ = try FleetDeviceList.parse(text, source: "devices.txt")
            Issue.record("'\(text)' was accepted")
        } catch {
            #expect(error.description.hasPrefix("devices.txt \(line)"), "\(error)")
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test("a device named on two lines is refused, naming both lines; sim lines are each a device of their own", arguments: [
        ("udp:127.0.0.2 a\nudp:127.0.0.3 b\nudp:127.0.0.2 c", "line 3", "udp:127.0.0.2:1337 is already on line 1"),
        ("udp:127.0.0.2:1337 a\n\nudp:127.0.0.2 b", "line 3", "udp:127.0.0.2:1337 is already on line 1"),
        ("profile=bench\nprofile:bench", "line 2", "profile:bench is already on line 1"),
        ("serial:/dev/ttyACM0 a\ntype=serial connstring=dev=/dev/ttyACM0 b", "line 2", "is already on line 1"),
    ])
    func duplicates(text: String, line: String, reason: String) throws {
        let error = try #require(throws: FleetDeviceListError.self) { try FleetDeviceList.parse(text, source: "devices.txt") }
        #expect(error.description.hasPrefix("devices.txt \(line)"), "\(error)")
        #expect(error.description.contains(reason), "\(error)")
        #expect(error.description.contains("list each device once"), "\(error)")
        #expect(try FleetDeviceList.parse("sim a\nsim b\ntype=sim c").count == 3)
    }

    @Test("a file written on Windows or by a spreadsheet: CRLF or CR line ends, a byte order mark")
    func windowsText() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("devices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let lines = ["# bench", "udp:127.0.0.2:1337 left", "", "udp:127.0.0.3 right", "udp:127.0.0.4 \"bad name"]
        for (ending, bom) in [("\r\n", true), ("\r\n", false), ("\r", false), ("\n", true)] {
            let path = dir.appendingPathComponent("devices.txt").path
            let bytes = (bom ? [0xef, 0xbb, 0xbf] : []) + Array(lines.dropLast().joined(separator: ending).utf8) + Array(ending.utf8)
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let devices = try FleetDeviceList.load(path: path)
            #expect(devices.map(\.name) == ["left", "right"], "\(ending.debugDescription)")
            #expect(devices.map(\.target.description) == ["udp:127.0.0.2:1337", "udp:127.0.0.3:1337"])
            // Errors still name the right line, without the line end.
            #expect(FileManager.default.createFile(atPath: path, contents: Data(Array(lines.joined(separator: ending).utf8))))
            let error = try #require(throws: FleetDeviceListError.self) { try FleetDeviceList.load(path: path) }
            #expect(error.description.hasPrefix("\(path) line 5 ('udp:127.0.0.4 \"bad name'): "), "\(error)")
        }
    }

    @Test("a file of comments alone names no device")
    func empty() {
        #expect(throws: FleetDeviceListError.noDevices(source: "devices file")) { try FleetDeviceList.parse("# nothing\n\n   \n") }
    }

    @Test("UDP ranges: consecutive addresses on one port, or consecutive ports")
    func ranges() throws {
        let addresses = try FleetDeviceList.udpRange("127.0.0.2-127.0.0.65")
        #expect(addresses.count == 64)
        #expect(addresses.first?.target == .spec(.udp(UDPEndpoint(host: "127.0.0.2", port: 1337))))
        #expect(addresses.last?.target == .spec(.udp(UDPEndpoint(host: "127.0.0.65", port: 1337))))
        #expect(addresses.map(\.index) == Array(0..<64))
        let across = try FleetDeviceList.udpRange("10.0.0.254-10.0.1.1:1400")
        #expect(across.map(\.target.description) == ["udp:10.0.0.254:1400", "udp:10.0.0.255:1400", "udp:10.0.1.0:1400", "udp:10.0.1.1:1400"])
        let ports = try FleetDeviceList.udpRange("127.0.0.1:2000-2003")
        #expect(ports.map(\.target.description) == ["udp:127.0.0.1:2000", "udp:127.0.0.1:2001", "udp:127.0.0.1:2002", "udp:127.0.0.1:2003"])
        for bad in ["127.0.0.2", "127.0.0.9-127.0.0.2", "127.0.0.1-host", "127.0.0.1:2000-1999", "0.0.0.0-255.255.255.255", "127.0.0.1-127.0.0.2:x", "1.2.3.256-1.2.3.4"] {
            #expect(throws: FleetDeviceListError.self, "\(bad)") { try FleetDeviceList.udpRange(bad) }
        }
    }

    @Test("a missing file is unreadable, named")
    func missingFile() {
        do {
            _ = try FleetDeviceList.load(path: "/nonexistent/devices.txt")
            Issue.record("a missing file was read")
        } catch {
            guard case .unreadable(let path, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(path == "/nonexistent/devices.txt")
            #expect(error.description.hasPrefix("cannot read the devices file /nonexistent/devices.txt: "))
        }
    }
}
