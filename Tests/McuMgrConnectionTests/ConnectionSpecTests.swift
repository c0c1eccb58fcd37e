import McuMgrConnection
import SMPBLE
import SMPUDP
import Testing

/// Connection strings as users type them: `--udp`, `--ble`, Go mcumgr's `--conntype/--connstring`.
@Suite("Connection specs")
struct ConnectionSpecTests {
    @Test("--udp HOST[:PORT], IPv6 in brackets, default port 1337", arguments: [
        ("192.0.2.1:1337", "192.0.2.1", 1337),
        ("192.0.2.1", "192.0.2.1", 1337),
        ("device.local:5683", "device.local", 5683),
        ("[::1]:9000", "::1", 9000),
        ("[fe80::1%eth0]", "fe80::1%eth0", 1337),
        ("::1", "::1", 1337),
        ("127.0.0.1:1337  ", "127.0.0.1", 1337),
    ])
    func udpOption(text: String, host: String, port: Int) throws {
        #expect(try ConnectionSpec(udpOption: text) == .udp(UDPEndpoint(host: host, port: port)))
    }

    @Test("bad --udp values say what is expected", arguments: ["", "a b", "127.0.0.1:0", "127.0.0.1:99999", "[::1", "[::1]x", "host:port"])
    func badUDPOption(text: String) {
        #expect(throws: ConnectionStringError.invalidUDPOption(text)) { try ConnectionSpec(udpOption: text) }
        #expect(ConnectionStringError.invalidUDPOption(text).description == "--udp expects HOST[:PORT] or [IPv6]:PORT, not '\(text)'")
    }

    @Test("Go's udp and oic_udp connection strings")
    func goUDP() throws {
        let expected = ConnectionSpec.udp(UDPEndpoint(host: "127.0.0.1", port: 1337))
        #expect(try ConnectionSpec(type: "udp", connString: "[127.0.0.1]:1337") == expected)
        #expect(try ConnectionSpec(type: "oic_udp", connString: "127.0.0.1:1337") == expected)
        #expect(try ConnectionSpec(type: "UDP", connString: "[::1]:5683") == .udp(UDPEndpoint(host: "::1", port: 5683)))
        #expect(throws: ConnectionStringError.missingUDPAddress) { try ConnectionSpec(type: "udp", connString: nil) }
        #expect(throws: ConnectionStringError.invalidUDPAddress("nope:port")) { try ConnectionSpec(type: "udp", connString: "nope:port") }
        #expect(ConnectionStringError.missingUDPAddress.description == "--conntype udp needs --connstring HOST:PORT")
        #expect(ConnectionStringError.invalidUDPAddress("x:y").description == "'x:y' is not a UDP address; use HOST:PORT, [HOST]:PORT or [IPv6]:PORT")
    }

    @Test("Go's ble connection strings: peer_id, peer_name, and our options")
    func goBLE() throws {
        #expect(try ConnectionSpec(type: "ble", connString: "peer_id=aa:bb:cc:dd:ee:ff")
            == .ble(BLEConnectionParameters(peer: .address("AA:BB:CC:DD:EE:FF"))))
        #expect(try ConnectionSpec(type: "oic_ble", connString: "peer_name=nimble-bleprph")
            == .ble(BLEConnectionParameters(peer: .name("nimble-bleprph"))))
        #expect(try ConnectionSpec(type: "ble", connString: nil) == .ble(BLEConnectionParameters(peer: .scan)))
        #expect(try ConnectionSpec(type: "ble", connString: "") == .ble(BLEConnectionParameters(peer: .scan)))
        let full = try ConnectionSpec(
            type: "ble", connString: "peer_id=C0:FF:EE:00:11:22, addr_type=random, ctlr_name=hci1, security=high, hci=tcp:127.0.0.1:9001")
        #expect(full == .ble(BLEConnectionParameters(
            peer: .address("C0:FF:EE:00:11:22"), addressType: .random, adapter: "hci1", security: .high,
            controller: .tcp(host: "127.0.0.1", port: 9001))))
        #expect(full.kind == .hci)
        // Go's blehostd names are read as aliases.
        #expect(try ConnectionSpec(type: "ble", connString: "peer_addr=C0:FF:EE:00:11:22,peer_addr_type=public,adapter=hci0")
            == .ble(BLEConnectionParameters(peer: .address("C0:FF:EE:00:11:22"), addressType: .public, adapter: "hci0")))
        // A bare value (what `--ble` takes and older profiles hold) is an address when it is one, else a name.
        #expect(try ConnectionSpec(type: "ble", connString: "C0:FF:EE:00:11:22") == .ble(BLEConnectionParameters(peer: .address("C0:FF:EE:00:11:22"))))
        #expect(try ConnectionSpec(bleOption: "AA:BB") == .ble(BLEConnectionParameters(peer: .name("AA:BB"))))
        #expect(try ConnectionSpec(bleOption: "aa:bb:cc:dd:ee:ff").kind == .ble)
    }

    @Test("stack=dbus|socket chooses the part of BlueZ: kinds bluez and ble; --bluez and --ble-socket make the same specs")
    func blueZStack() throws {
        let dbus = try ConnectionSpec(type: "ble", connString: "peer_name=board,stack=dbus")
        #expect(dbus == .ble(BLEConnectionParameters(peer: .name("board"), stack: .dbus)))
        #expect(dbus.kind == .bluez)
        #expect(dbus.connectionString == "peer_name=board,stack=dbus")
        #expect(try ConnectionSpec(bleOption: "board", stack: .dbus) == dbus)
        let socket = try ConnectionSpec(type: "ble", connString: "AA:BB:CC:DD:EE:FF,stack=SOCKET")
        #expect(socket == .ble(BLEConnectionParameters(peer: .address("AA:BB:CC:DD:EE:FF"), stack: .socket)))
        #expect(socket.kind == .ble)
        #expect(try ConnectionSpec(bleOption: "board").kind == .ble)
        #expect(throws: ConnectionStringError.invalidValue(key: "stack", value: "kernel", expected: "dbus, socket")) {
            try ConnectionSpec(type: "ble", connString: "peer_name=x,stack=kernel")
        }
        #expect(throws: ConnectionStringError.self) { try ConnectionSpec(type: "ble", connString: "peer_name=x,stack=dbus,hci=user:0") }
        #expect(TransportKind.bluez.description == "Bluetooth LE through bluetoothd")
        #expect(ConnectionFactory.standard.isAvailable(.bluez))
    }

    @Test("HCI controllers: tcp, serial with baud rate, user channel", arguments: [
        ("tcp:127.0.0.1:9001", HCIController.tcp(host: "127.0.0.1", port: 9001)),
        ("tcp:[::1]:9001", .tcp(host: "::1", port: 9001)),
        ("serial:/dev/ttyACM0@1000000", .serial(path: "/dev/ttyACM0", baudRate: 1_000_000)),
        ("serial:/dev/ttyUSB1", .serial(path: "/dev/ttyUSB1", baudRate: nil)),
        ("user:0", .userChannel(index: 0)),
        ("user:hci2", .userChannel(index: 2)),
    ])
    func hciControllers(text: String, controller: HCIController) throws {
        let spec = try ConnectionSpec(type: "ble", connString: "peer_name=x,hci=\(text)")
        #expect(spec == .ble(BLEConnectionParameters(peer: .name("x"), controller: controller)))
        #expect(spec.kind == .hci)
    }

    @Test("Go's serial connection strings, the 1.0 bare form, and our options")
    func goSerial() throws {
        #expect(try ConnectionSpec(type: "serial", connString: "dev=/dev/ttyACM0,baud=115200,mtu=256")
            == .serial(SerialConnectionParameters(device: "/dev/ttyACM0", baudRate: 115_200, maximumPacketSize: 256)))
        #expect(try ConnectionSpec(type: "oic_serial", connString: "dev=/dev/ttyUSB0, baud=9600")
            == .serial(SerialConnectionParameters(device: "/dev/ttyUSB0", baudRate: 9600)))
        #expect(try ConnectionSpec(type: "serial", connString: "/dev/ttys002") == .serial(SerialConnectionParameters(device: "/dev/ttys002")))
        #expect(try ConnectionSpec(type: "serial", connString: "dev=/dev/pts/3,line_length=512,raw=true")
            == .serial(SerialConnectionParameters(device: "/dev/pts/3", lineLength: 512, raw: true)))
    }

    @Test("the simulator, with Go-style names")
    func simulator() throws {
        #expect(try ConnectionSpec(type: "sim", connString: nil) == .simulator)
        #expect(try ConnectionSpec(type: "simulator", connString: nil).kind == .simulator)
    }

    /// What a baud rate outside termios' standard rates is told.
    static let standardBaudRates = "a standard baud rate such as 115200 or 1000000 (one of 50, 75, 110, 134, 150, 200, 300, 600, 1200, 1800, "
        + "2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000, 576000, 921600, 1000000, 1152000, 1500000, 2000000, "
        + "2500000, 3000000, 3500000, 4000000)"

    @Test("bad connection strings give a typed error with a message", arguments: [
        ("bogus", "x", ConnectionStringError.unknownType("bogus"), "unknown connection type 'bogus'; use udp, serial, ble or sim"),
        ("serial", "", .missingSerialDevice, "the serial connection string names no device; use dev=PATH, e.g. dev=/dev/ttyACM0,baud=115200"),
        ("serial", "dev=/dev/x,baud=fast", .invalidValue(key: "baud", value: "fast", expected: "a number from 50 to 4000000"),
         "'fast' is not a valid baud: expected a number from 50 to 4000000"),
        ("serial", "dev=/dev/x,baud=12345", .invalidValue(key: "baud", value: "12345", expected: Self.standardBaudRates),
         "'12345' is not a valid baud: expected \(Self.standardBaudRates)"),
        ("serial", "dev=/dev/x,mtu=65535", .invalidValue(key: "mtu", value: "65535", expected: "a number from 32 to 65533"),
         "'65535' is not a valid mtu: expected a number from 32 to 65533"),
        ("serial", "dev=/dev/x,mtu=8", .invalidValue(key: "mtu", value: "8", expected: "a number from 32 to 65535"),
         "'8' is not a valid mtu: expected a number from 32 to 65535"),
        ("serial", "dev=/dev/x,raw=maybe", .invalidValue(key: "raw", value: "maybe", expected: "true or false"),
         "'maybe' is not a valid raw: expected true or false"),
        ("serial", "dev=/dev/x,parity=odd", .unknownKey(.serial, key: "parity", known: ["dev", "baud", "mtu", "line_length", "raw", "rtscts"]),
         "unknown key 'parity' in the serial connection string; use dev, baud, mtu, line_length, raw or rtscts"),
        ("serial", "dev=/dev/x,baud=9600,baud=115200", .duplicateKey("baud"), "'baud' is given twice in the connection string"),
        ("serial", "dev=/dev/x,/dev/y", .unknownKey(.serial, key: "/dev/y", known: ["dev", "baud", "mtu", "line_length", "raw", "rtscts"]),
         "unknown key '/dev/y' in the serial connection string; use dev, baud, mtu, line_length, raw or rtscts"),
        ("ble", "peer_id=AA:BB", .invalidValue(key: "peer_id", value: "AA:BB", expected: "a device address such as AA:BB:CC:DD:EE:FF"),
         "'AA:BB' is not a valid peer_id: expected a device address such as AA:BB:CC:DD:EE:FF"),
        ("ble", "peer_id=AA:BB:CC:DD:EE:FF,peer_name=x", .conflictingPeers, "name the Bluetooth LE device by peer_id or by peer_name, not both"),
        ("ble", "peer_name=x,addr_type=rpa_pub", .invalidValue(key: "addr_type", value: "rpa_pub", expected: "public, random"),
         "'rpa_pub' is not a valid addr_type: expected public, random"),
        ("ble", "peer_name=x,security=max", .invalidValue(key: "security", value: "max", expected: "low, medium, high"),
         "'max' is not a valid security: expected low, medium, high"),
        ("ble", "peer_name=x,hci=tcp:127.0.0.1", .invalidValue(key: "hci", value: "tcp:127.0.0.1", expected: "tcp:HOST:PORT, serial:PATH[@BAUD] or user:N"),
         "'tcp:127.0.0.1' is not a valid hci: expected tcp:HOST:PORT, serial:PATH[@BAUD] or user:N"),
        ("ble", "peer_name=x,hci=user:x", .invalidValue(key: "hci", value: "user:x", expected: "tcp:HOST:PORT, serial:PATH[@BAUD] or user:N"),
         "'user:x' is not a valid hci: expected tcp:HOST:PORT, serial:PATH[@BAUD] or user:N"),
        ("ble", "own_addr_type=random", .unknownKey(.ble, key: "own_addr_type", known: ["peer_id", "peer_name", "addr_type", "ctlr_name", "security", "hci", "stack"]),
         "unknown key 'own_addr_type' in the Bluetooth LE connection string; use peer_id, peer_name, addr_type, ctlr_name, security, hci or stack"),
    ])
    func badConnectionStrings(type: String, connString: String, error: ConnectionStringError, message: String) {
        #expect(throws: error) { try ConnectionSpec(type: type, connString: connString) }
        #expect(error.description == message)
    }

    @Test("an empty --ble is refused")
    func emptyBLE() {
        #expect(throws: ConnectionStringError.emptyBLEPeer) { try ConnectionSpec(bleOption: "") }
    }

    @Test("every spec's canonical type and connection string read back as the same spec", arguments: [
        ConnectionSpec.udp(UDPEndpoint(host: "192.0.2.1", port: 1337)),
        .udp(UDPEndpoint(host: "::1", port: 9000)),
        .ble(BLEConnectionParameters(peer: .scan)),
        .ble(BLEConnectionParameters(peer: .scan, adapter: "hci1")),
        .ble(BLEConnectionParameters(peer: .name("Zephyr SMP"))),
        .ble(BLEConnectionParameters(peer: .address("AA:BB:CC:DD:EE:FF"), addressType: .random, adapter: "hci0", security: .medium,
                                     controller: .serial(path: "/dev/ttyACM1", baudRate: 1_000_000))),
        .ble(BLEConnectionParameters(peer: .address("AA:BB:CC:DD:EE:FF"), controller: .tcp(host: "::1", port: 9001))),
        .ble(BLEConnectionParameters(peer: .name("x"), controller: .userChannel(index: 0))),
        .ble(BLEConnectionParameters(peer: .address("AA:BB:CC:DD:EE:FF"), addressType: .random, adapter: "hci1", stack: .dbus)),
        .ble(BLEConnectionParameters(peer: .name("x"), stack: .socket)),
        .serial(SerialConnectionParameters(device: "/dev/ttyACM0")),
        .serial(SerialConnectionParameters(device: "/dev/ttyACM0", baudRate: 1_000_000, maximumPacketSize: 2048, lineLength: 512, raw: true)),
        .simulator,
    ])
    func canonicalRoundTrip(spec: ConnectionSpec) throws {
        #expect(try ConnectionSpec(type: spec.typeName, connString: spec.connectionString) == spec)
    }

    @Test("canonical connection strings are Go's syntax, keys in a fixed order")
    func canonicalText() {
        let ble = ConnectionSpec.ble(BLEConnectionParameters(
            peer: .address("AA:BB:CC:DD:EE:FF"), addressType: .random, adapter: "hci0", security: .high, controller: .userChannel(index: 1)))
        #expect(ble.typeName == "ble")
        #expect(ble.connectionString == "peer_id=AA:BB:CC:DD:EE:FF,addr_type=random,ctlr_name=hci0,security=high,hci=user:1")
        let serial = ConnectionSpec.serial(SerialConnectionParameters(device: "/dev/ttyACM0", baudRate: 115_200, maximumPacketSize: 256))
        #expect(serial.connectionString == "dev=/dev/ttyACM0,baud=115200,mtu=256")
        #expect(ConnectionSpec.udp(UDPEndpoint(host: "::1", port: 1337)).connectionString == "[::1]:1337")
        #expect(ConnectionSpec.simulator.connectionString == nil)
    }
}
