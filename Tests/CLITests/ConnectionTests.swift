import SMPTestSupport
import Foundation
import Testing

/// Connections, global options and profiles.
@Suite("mcumgr connections and global options")
struct ConnectionTests {
    @Test("echo over UDP, human and JSON")
    func echoOverUDP() async throws {
        try await withSimulator { sim in
            let human = try await sim.mcumgr(["echo", "hello", "world"])
            Expect.success(human)
            #expect(human.stdout == "hello world\n")
            #expect(human.stderr.isEmpty, "\(human)")

            let json = try await sim.mcumgr(["echo", "hello", "--json"])
            Expect.success(json)
            #expect(try json.json()["echo"] as? String == "hello")
        }
    }

    @Test("without a connection, the built-in simulator answers")
    func builtInSimulatorByDefault() async throws {
        let result = try await CLI.mcumgr(["echo", "hi"])
        Expect.success(result)
        #expect(result.stdout == "hi\n")
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.contains("built-in simulated device"))

        let explicit = try await CLI.mcumgr(["--sim", "image", "list", "--json"])
        Expect.success(explicit)
        let images = try #require(try explicit.json()["images"] as? [[String: Any]])
        #expect(images.contains { $0["version"] as? String == "1.0.0" && $0["active"] as? Bool == true })
    }

    @Test("global options before and after the subcommand give the same result")
    func globalOptionsAnywhere() async throws {
        try await withSimulator { sim in
            let before = try await CLI.mcumgr(["--udp", sim.address, "--json", "image", "list"])
            let between = try await CLI.mcumgr(["--json", "image", "--udp", sim.address, "list"])
            let after = try await CLI.mcumgr(["image", "list", "--udp", sim.address, "--json"])
            let equalsForm = try await CLI.mcumgr(["--udp=\(sim.address)", "-t", "2", "-r", "1", "image", "list", "--json"])
            for result in [before, between, after, equalsForm] {
                Expect.success(result)
                #expect(result.stdout == after.stdout)
            }
            #expect(try before.json()["images"] is [Any])

            let humanBefore = try await CLI.mcumgr(["--udp", sim.address, "image", "list"])
            let humanAfter = try await CLI.mcumgr(["image", "list", "--udp", sim.address])
            Expect.success(humanBefore)
            #expect(humanBefore.stdout == humanAfter.stdout)
            #expect(humanBefore.stdout.hasPrefix("Images:\n image=0 slot=0\n    version: 1.0.0"))
        }
    }

    @Test("Go mcumgr's --conntype/--connstring forms")
    func goConnectionForms() async throws {
        try await withSimulator { sim in
            for connstring in ["[127.0.0.1]:\(sim.port)", "127.0.0.1:\(sim.port)"] {
                let result = try await CLI.mcumgr(["--conntype", "udp", "--connstring=\(connstring)", "echo", "go"])
                Expect.success(result)
                #expect(result.stdout == "go\n")
            }
        }
    }

    @Test("IPv6 addresses in brackets")
    func ipv6() async throws {
        let sim: SimulatorProcess
        do {
            sim = try await SimulatorProcess.start(endpoint: "[::1]:0")
        } catch {
            withKnownIssue("this machine has no IPv6 loopback") { throw error }
            return
        }
        defer { sim.stop() }
        #expect(sim.address == "[::1]:\(sim.port)")
        let result = try await CLI.mcumgr(["echo", "v6", "--udp", sim.address])
        Expect.success(result)
        #expect(result.stdout == "v6\n")
        let go = try await CLI.mcumgr(["--conntype", "udp", "--connstring", "[::1]:\(sim.port)", "echo", "v6"])
        Expect.success(go)
        #expect(go.stdout == "v6\n")
    }

    @Test("Bluetooth LE through BlueZ: without Bluetooth in the kernel, every way of naming a device ends at once with exit status 3")
    func bleNotAvailable() async throws {
        for arguments in [
            ["--ble", "AA:BB:CC:DD:EE:FF", "echo", "hi"],
            ["--ble", "AA:BB:CC:DD:EE:FF", "--ble-type", "random", "--ble-adapter", "hci0", "--ble-security", "high", "--mtu", "498", "echo", "hi"],
            ["--ble", "my-board", "image", "list"],
            ["--ble-scan", "echo", "x"],
            ["--ble-scan"],
            ["--ble-scan", "--scan-seconds", "1", "--json"],
            ["scan", "--ble-adapter", "hci0"],
            ["--conntype", "ble", "--connstring", "peer_id=AA:BB:CC:DD:EE:FF,addr_type=random", "echo", "x"],
            ["--conntype", "ble", "--connstring", "peer_name=x", "echo", "x"],
        ] {
            // The bound guards against a hang; the fail-fast time itself is measured by hand, not asserted.
            let result = try await CLI.mcumgr(arguments, timeout: 60)
            Expect.failure(result, status: 3, mentioning: "Bluetooth is not available")
            #expect(!result.stderr.contains("no connector for it is registered"), "\(arguments): \(result.stderr)")
        }
    }

    @Test("Bluetooth LE options: wrong values and misplaced options are usage errors (exit status 2)")
    func bleUsageErrors() async throws {
        Expect.failure(try await CLI.mcumgr(["--ble", "AA:BB:CC:DD:EE:FF", "--ble-type", "static", "echo", "x"]), status: 2, mentioning: "--ble-type")
        Expect.failure(try await CLI.mcumgr(["--ble", "AA:BB:CC:DD:EE:FF", "--ble-security", "max", "echo", "x"]), status: 2, mentioning: "--ble-security")
        Expect.failure(try await CLI.mcumgr(["--ble", "my-board", "--ble-type", "random", "echo", "x"]), status: 2, mentioning: "--ble-type")
        Expect.failure(try await CLI.mcumgr(["--udp", "127.0.0.1", "--ble-security", "high", "echo", "x"]), status: 2, mentioning: "--ble-security")
        Expect.failure(
            try await CLI.mcumgr(["--conntype", "ble", "--connstring", "peer_id=AA:BB", "echo", "x"]), status: 2, mentioning: "AA:BB:CC:DD:EE:FF")
    }

    @Test("a profile names a BlueZ device with its address type, adapter and security, and -c uses it")
    func bleProfile() async throws {
        let env = ["MCUMGR_CONFIG_DIR": CLI.temporaryDirectory().path]
        Expect.success(try await CLI.mcumgr(
            ["conn", "add", "board", "--ble", "aa:bb:cc:dd:ee:ff", "--ble-type", "random", "--ble-adapter", "hci1", "--ble-security", "medium"], environment: env))
        let shown = try await CLI.mcumgr(["conn", "show", "board"], environment: env)
        Expect.success(shown)
        for part in ["peer_id=AA:BB:CC:DD:EE:FF", "addr_type=random", "ctlr_name=hci1", "security=medium"] {
            #expect(shown.stdout.contains(part), "\(shown.stdout)")
        }
        Expect.failure(try await CLI.mcumgr(["-c", "board", "echo", "hi"], environment: env, timeout: 60), status: 3, mentioning: "Bluetooth is not available")
    }

    @Test("conn add, show, use with -c, remove")
    func profiles() async throws {
        let config = CLI.temporaryDirectory().path
        let env = ["MCUMGR_CONFIG_DIR": config]
        try await withSimulator { sim in
            Expect.success(try await CLI.mcumgr(["conn", "add", "board", "--udp", sim.address], environment: env))
            Expect.success(try await CLI.mcumgr(["conn", "add", "gostyle", "type=udp", "connstring=[127.0.0.1]:\(sim.port)"], environment: env))
            #expect(FileManager.default.fileExists(atPath: config + "/connections.json"))

            let show = try await CLI.mcumgr(["conn", "show"], environment: env)
            Expect.success(show)
            #expect(show.stdout.contains("board"))
            #expect(show.stdout.contains("127.0.0.1:\(sim.port)"))
            let showJSON = try await CLI.mcumgr(["--json", "conn", "show"], environment: env)
            let connections = try #require(try showJSON.json()["connections"] as? [String: [String: Any]])
            #expect(connections["board"]?["type"] as? String == "udp")
            #expect(connections["board"]?["connstring"] as? String == "127.0.0.1:\(sim.port)")
            #expect(connections["gostyle"]?["connstring"] as? String == "127.0.0.1:\(sim.port)")

            for arguments in [["-c", "board", "echo", "profile"], ["echo", "profile", "--conn", "gostyle"]] {
                let echo = try await CLI.mcumgr(arguments, environment: env)
                Expect.success(echo)
                #expect(echo.stdout == "profile\n")
                #expect(echo.stderr.isEmpty)
            }

            Expect.success(try await CLI.mcumgr(["conn", "remove", "board"], environment: env))
            let gone = try await CLI.mcumgr(["-c", "board", "echo", "x"], environment: env)
            Expect.failure(gone, status: 2, mentioning: "no connection profile named 'board'")
            let after = try await CLI.mcumgr(["conn", "show", "--json"], environment: env)
            #expect((try after.json()["connections"] as? [String: Any])?.keys.sorted() == ["gostyle"])
        }
    }

    @Test("-v logs the SMP frames on standard error")
    func verbose() async throws {
        try await withSimulator { sim in
            let result = try await sim.mcumgr(["-v", "echo", "frames"])
            Expect.success(result)
            #expect(result.stdout == "frames\n")
            #expect(result.stderr.contains("->"))
            #expect(result.stderr.contains("<-"))
        }
    }
}
