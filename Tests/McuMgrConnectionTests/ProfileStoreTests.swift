import Foundation
import McuMgrConnection
import SMPTestSupport
import SMPUDP
import Testing

/// The profiles file: where it is, its documented format, round trips, and keys it does not know.
@Suite("Connection profiles")
struct ProfileStoreTests {
    @Test("the file's place: $MCUMGR_CONFIG_DIR, else $XDG_CONFIG_HOME/mcumgr, else ~/.config/mcumgr")
    func location() {
        #expect(ProfileStore(environment: ["MCUMGR_CONFIG_DIR": "/a", "XDG_CONFIG_HOME": "/b", "HOME": "/c"]).path == "/a/connections.json")
        #expect(ProfileStore(environment: ["MCUMGR_CONFIG_DIR": "", "XDG_CONFIG_HOME": "/b", "HOME": "/c"]).path == "/b/mcumgr/connections.json")
        #expect(ProfileStore(environment: ["HOME": "/c"]).path == "/c/.config/mcumgr/connections.json")
    }

    @Test("a missing file holds no profiles")
    func missingFile() throws {
        let dir = try Subprocess.temporaryDirectory("profiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let profiles = try ProfileStore(path: dir.appendingPathComponent("none/connections.json").path).load()
        #expect(profiles == ConnectionProfiles())
        #expect(profiles.version == 1)
    }

    @Test("every kind of transport round-trips through the file, and Python's json reads what we wrote")
    func roundTrip() async throws {
        let dir = try Subprocess.temporaryDirectory("profiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = ProfileStore(path: dir.appendingPathComponent("sub/connections.json").path)
        let specs: [String: ConnectionSpec] = [
            "board": .udp(UDPEndpoint(host: "192.0.2.1", port: 1337)),
            "v6": .udp(UDPEndpoint(host: "::1", port: 9000)),
            "nrf": .ble(BLEConnectionParameters(peer: .address("C0:FF:EE:00:11:22"), addressType: .random, adapter: "hci0", security: .medium)),
            "bumble": .ble(BLEConnectionParameters(peer: .name("smp-peripheral"), controller: .tcp(host: "127.0.0.1", port: 9001))),
            "uart": .serial(SerialConnectionParameters(device: "/dev/ttyACM0", baudRate: 1_000_000, lineLength: 512, raw: false)),
            "recovery": .serial(SerialConnectionParameters(device: "/dev/ttyUSB0", raw: true)),
            "sim": .simulator,
        ]
        try store.save(ConnectionProfiles(connections: specs.mapValues { ConnectionProfile($0) }))
        let loaded = try store.load()
        #expect(loaded.version == ConnectionProfiles.currentVersion)
        #expect(try loaded.connections.mapValues { try $0.spec() } == specs)

        let summary = try await python("""
            import json, sys
            d = json.load(open(sys.argv[1]))
            print(d["version"], ";".join(f"{k}={v['type']}|{v.get('connstring', '-')}" for k, v in sorted(d["connections"].items())))
            """, [store.path])
        #expect(summary == """
            1 board=udp|192.0.2.1:1337;bumble=ble|peer_name=smp-peripheral,hci=tcp:127.0.0.1:9001;\
            nrf=ble|peer_id=C0:FF:EE:00:11:22,addr_type=random,ctlr_name=hci0,security=medium;\
            recovery=serial|dev=/dev/ttyUSB0,raw=true;sim=sim|-;\
            uart=serial|dev=/dev/ttyACM0,baud=1000000,line_length=512;v6=udp|[::1]:9000

            """)
    }

    @Test("a hand-written file in the documented format, with keys this version does not know, is read and kept")
    func handWritten() async throws {
        let dir = try Subprocess.temporaryDirectory("profiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("connections.json").path
        try """
            {
              "version": 1,
              "comment": "lab benches",
              "connections": {
                "bench":  { "type": "udp",    "connstring": "[192.0.2.7]:1337", "note": "rack 3", "tags": ["a", 1, 2.5, true, null] },
                "desk":   { "type": "serial", "connstring": "dev=/dev/ttyACM0, baud=115200, mtu=256" },
                "phone":  { "type": "ble",    "connstring": "peer_name=Zephyr SMP,security=high" },
                "dongle": { "type": "ble",    "connstring": "peer_id=c0:ff:ee:00:11:22,hci=user:0" },
                "sim":    { "type": "sim" }
              }
            }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let store = ProfileStore(path: path)
        var profiles = try store.load()
        #expect(profiles.unknownFields == ["comment": .string("lab benches")])
        #expect(profiles.connections["bench"]?.unknownFields == [
            "note": .string("rack 3"), "tags": .array([.string("a"), .integer(1), .number(2.5), .bool(true), .null]),
        ])
        #expect(try profiles.connections["bench"]?.spec() == .udp(UDPEndpoint(host: "192.0.2.7", port: 1337)))
        #expect(try profiles.connections["desk"]?.spec() == .serial(SerialConnectionParameters(device: "/dev/ttyACM0", baudRate: 115_200, maximumPacketSize: 256)))
        #expect(try profiles.connections["phone"]?.spec() == .ble(BLEConnectionParameters(peer: .name("Zephyr SMP"), security: .high)))
        #expect(try profiles.connections["dongle"]?.spec().kind == .hci)
        #expect(try profiles.connections["sim"]?.spec() == .simulator)

        profiles.connections["new"] = ConnectionProfile(.simulator)
        try store.save(profiles)
        let again = try store.load()
        #expect(again.unknownFields == profiles.unknownFields)
        #expect(again.connections["bench"] == profiles.connections["bench"])
        #expect(again.connections.count == 6)
        let kept = try await python("import json, sys; d = json.load(open(sys.argv[1])); print(d['comment'], d['connections']['bench']['tags'])", [path])
        #expect(kept == "lab benches ['a', 1, 2.5, True, None]\n")
    }

    @Test("a file written before the version field existed reads as version 1")
    func versionless() throws {
        let dir = try Subprocess.temporaryDirectory("profiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("connections.json").path
        try #"{"connections": {"board": {"type": "udp", "connstring": "127.0.0.1:1337"}, "old": {"type": "ble", "connstring": "AA:BB"}}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let profiles = try ProfileStore(path: path).load()
        #expect(profiles.version == 1)
        #expect(try profiles.connections["board"]?.spec() == .udp(UDPEndpoint(host: "127.0.0.1", port: 1337)))
        #expect(try profiles.connections["old"]?.spec() == .ble(BLEConnectionParameters(peer: .name("AA:BB"))))
    }

    @Test("a file of a newer format version is neither used (a version-99 file is not version 1) nor overwritten")
    func newerVersion() throws {
        let dir = try Subprocess.temporaryDirectory("profiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("connections.json").path
        let text = #"{"version": 99, "connections": {"board": {"type": "udp", "connstring": "127.0.0.1:1337", "mode": "new"}}}"#
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let store = ProfileStore(path: path)
        #expect(throws: ProfileStoreError.newerVersion(path: path, version: 99)) { try store.profile(named: "board") }
        #expect(throws: ProfileStoreError.newerVersion(path: path, version: 99)) {
            try store.update { $0.connections["x"] = ConnectionProfile(.simulator) }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        #expect(ProfileStoreError.newerVersion(path: path, version: 99).description
            == "the connection profiles in \(path) are format version 99, newer than this mcumgr reads and writes (1); update mcumgr to use them")
    }

    @Test("a file saved on Windows (byte order mark, CRLF) is read")
    func windowsText() throws {
        let dir = try Subprocess.temporaryDirectory("profiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("connections.json").path
        let text = "{\r\n  \"version\": 1,\r\n  \"connections\": {\r\n    \"board\": { \"type\": \"udp\", \"connstring\": \"127.0.0.1:1337\" }\r\n  }\r\n}\r\n"
        #expect(FileManager.default.createFile(atPath: path, contents: Data([0xef, 0xbb, 0xbf] + Array(text.utf8))))
        #expect(try ProfileStore(path: path).profile(named: "board").spec() == .udp(UDPEndpoint(host: "127.0.0.1", port: 1337)))
    }

    @Test("a broken file and a missing profile give typed errors with the CLI's messages")
    func errors() throws {
        let dir = try Subprocess.temporaryDirectory("profiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("connections.json").path
        let store = ProfileStore(path: path)
        #expect(throws: ProfileStoreError.notFound(name: "x", path: path)) { try store.profile(named: "x") }
        #expect(ProfileStoreError.notFound(name: "x", path: path).description
            == "no connection profile named 'x' in \(path); list them with 'mcumgr conn show'")
        #expect(ProfileStoreError.notFound(name: "x", path: nil).description == "no connection profile named 'x'; list them with 'mcumgr conn show'")

        // What is wrong, in words: not a DecodingError's dump.
        for (broken, reason) in [
            ("{not json", "not valid JSON; check its brackets, quotes and commas"),
            (#"{"connections": {"a": {"connstring": "x"}}}"#, #""connections" → "a" → "type" is missing"#),
            (#"{"version": "one"}"#, #""version" should be a whole number"#),
            (#"{"connections": {"a": {"type": 5}}}"#, #""connections" → "a" → "type" should be text"#),
            (#"{"connections": {"a": null}}"#, #""connections" → "a" is null"#),
            ("[1, 2]", "the file should be an object ({…})"),
            (#"{"version": 0}"#, #""version" is 0; the first format version is 1"#),
        ] {
            try broken.write(toFile: path, atomically: true, encoding: .utf8)
            let error = try #require(throws: ProfileStoreError.self) { try store.load() }
            #expect(error == .unreadable(path: path, reason: reason))
            #expect(error.description == "cannot read the connection profiles in \(path): \(reason); fix or delete the file")
        }
    }

    @Test("a named pipe as the profiles file is refused at once, in words")
    func namedPipe() throws {
        let dir = try Subprocess.temporaryDirectory("profiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("connections.json").path
        #expect(mkfifo(path, 0o600) == 0)
        let error = try #require(throws: ProfileStoreError.self) { try ProfileStore(path: path).load() }
        #expect(error == .unreadable(path: path, reason: "\(path) is a named pipe (FIFO), not a regular file; save its contents to a file and give that"))
    }

    @Test("a file that cannot be written or read gives the system's reason, not an error dump")
    func systemReasons() throws {
        let dir = try Subprocess.temporaryDirectory("profiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        // A regular file where the profiles' folder should be.
        let blocker = dir.appendingPathComponent("blocker")
        try "x".write(to: blocker, atomically: true, encoding: .utf8)
        let store = ProfileStore(path: blocker.appendingPathComponent("connections.json").path)
        let written = try #require(throws: ProfileStoreError.self) { try store.save(ConnectionProfiles()) }
        guard case .unwritable(_, let reason) = written else { Issue.record("expected unwritable, got \(written)"); return }
        #expect(reason == String(cString: strerror(ENOTDIR)) || reason == String(cString: strerror(EEXIST)), "\(reason)")
        // A folder where the file should be.
        let folder = ProfileStore(path: dir.path)
        let read = try #require(throws: ProfileStoreError.self) { try folder.load() }
        guard case .unreadable(_, let why) = read else { Issue.record("expected unreadable, got \(read)"); return }
        #expect(why == String(cString: strerror(EISDIR)), "\(why)")
    }

    @Test("update adds and removes profiles in one step")
    func update() throws {
        let dir = try Subprocess.temporaryDirectory("profiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = ProfileStore(path: dir.appendingPathComponent("connections.json").path)
        try store.update { $0.connections["a"] = ConnectionProfile(.simulator) }
        try store.update { $0.connections["b"] = ConnectionProfile(type: "udp", connstring: "127.0.0.1:1") }
        let removed = try store.update { $0.connections.removeValue(forKey: "a") != nil }
        #expect(removed)
        #expect(try store.load().connections.keys.sorted() == ["b"])
        #expect(ConnectionProfile(type: "udp", connstring: "127.0.0.1:1").summary == "type=udp connstring=127.0.0.1:1")
        #expect(ConnectionProfile(.simulator).summary == "type=sim")
    }
}
