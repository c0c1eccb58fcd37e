import Foundation
import SMPSimulator
import Testing

/// `mcumgr fleet …` against `mcumgr-sim --devices N` over UDP: the lines printed when not on a
/// terminal, --json and --report, exit statuses, and the canary stop.
@Suite("mcumgr fleet")
struct FleetCommandTests {
    /// Parses a JSON object file.
    static func json(file: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
    }

    @Test("fleet upgrade of 4 devices: 10 % lines, a summary, a report; a second run finds them unchanged; fleet list shows 2.0.0")
    func upgradeFour() async throws {
        let image = try await TestImages.make(version: "2.0.0", payloadSize: 48 * 1024, seed: 21)
        let sim = try await FleetSimulator.start(count: 4)
        let devices = try sim.devicesFile()
        let report = CLI.temporaryDirectory().appendingPathComponent("report.json").path

        let run = try await CLI.mcumgr(["fleet", "upgrade", image, "--devices", devices, "--report", report])
        Expect.success(run)
        #expect(run.stdout.contains("fleet: upgrading 4 devices"))
        for index in 0..<4 {
            #expect(run.stdout.contains("dev-\(index): started"), "\(run)")
            #expect(run.stdout.contains("dev-\(index): 50% ("), "one line per 10 % per device: \(run)")
            #expect(run.stdout.contains("dev-\(index): 100% ("))
            #expect(run.stdout.contains("dev-\(index): upgraded ("))
        }
        #expect(run.stdout.contains("Fleet upgrade: 4 upgraded, 0 unchanged, 0 failed, 0 not started (4 devices"))
        #expect(!run.stdout.contains("\u{1b}["), "no terminal control sequences when not on a terminal")
        let written = try Self.json(file: report)
        #expect(written["ok"] as? Bool == true)
        #expect(written["exit_status"] as? Int == 0)
        let entries = try #require(written["devices"] as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == ["dev-0", "dev-1", "dev-2", "dev-3"])
        #expect(entries.map { $0["connection"] as? String } == sim.devices.map { "udp:\($0.address)" })
        #expect(entries.allSatisfy { $0["result"] as? String == "upgraded" && $0["attempts"] as? Int == 1 })

        let again = try await CLI.mcumgr(["fleet", "upgrade", image, "--devices", devices, "--json"])
        Expect.success(again)
        let answer = try again.json()
        #expect((answer["totals"] as? [String: Int])?["unchanged"] == 4, "\(again)")
        #expect(again.stderr.contains("dev-0: unchanged (already running the images)"), "progress goes to standard error with --json")

        let list = try await CLI.mcumgr(["fleet", "list", "--devices", devices, "--json"])
        Expect.success(list)
        let listed = try #require(try list.json()["devices"] as? [[String: Any]])
        #expect(listed.map { $0["version"] as? String } == ["2.0.0", "2.0.0", "2.0.0", "2.0.0"])
        let human = try await CLI.mcumgr(["fleet", "list", "--devices", devices])
        Expect.success(human)
        #expect(human.stdout.contains("4 of 4 devices read"))

        let counts = try await sim.stop()
        #expect(counts.allSatisfy { $0.uploads > 0 }, "\(counts)")
    }

    @Test("canary: the first device never comes back after its reset; the others get not one packet and the exit status is 1")
    func canaryStops() async throws {
        let image = try await TestImages.make(version: "2.0.0", payloadSize: 16 * 1024, seed: 22)
        let sim = try await FleetSimulator.start(count: 4, ["--device-fault", "0=no-return"])
        #expect(sim.devices.map(\.fault) == ["no-return", nil, nil, nil])
        let report = CLI.temporaryDirectory().appendingPathComponent("report.json").path
        let run = try await CLI.mcumgr([
            "fleet", "upgrade", image, "--devices", try sim.devicesFile(), "--canary", "1", "--reset-timeout", "3", "--report", report,
        ])
        Expect.failure(run, status: 1, mentioning: "1 of 4 devices failed, 3 not started (canary device dev-0 failed)")
        #expect(run.stdout.contains("Stopped: canary device dev-0 failed; no further device was started"), "\(run)")
        #expect(run.stdout.contains("dev-0 (udp:\(sim.devices[0].address)), 1 attempt: failed in state reset: the device did not answer again after the reset"), "\(run)")
        #expect(run.stdout.contains("Not started: dev-1, dev-2, dev-3"))
        let written = try Self.json(file: report)
        #expect(written["exit_status"] as? Int == 1)
        #expect(written["stopped"] as? String == "canary device dev-0 failed")
        let entries = try #require(written["devices"] as? [[String: Any]])
        #expect(entries.map { $0["result"] as? String } == ["failed", "not_started", "not_started", "not_started"])
        #expect(entries[0]["state"] as? String == "reset")
        let counts = try await sim.stop()
        #expect(counts[0].uploads > 0)
        #expect(counts.dropFirst().map(\.packets) == [0, 0, 0], "no request at all reached the other devices: \(counts)")
    }

    @Test("--udp-range with --dry-run --json: every device would get an upload; nothing is written")
    func dryRunOverRange() async throws {
        let image = try await TestImages.make(version: "2.0.0", payloadSize: 16 * 1024, seed: 23)
        // Consecutive addresses on one port; the subnet and port are this test's own.
        let subnet = Int.random(in: 10...250)
        var sim: FleetSimulator?
        var port = 0
        for _ in 0..<5 where sim == nil {
            port = Int.random(in: 20_000...60_000)
            sim = try? await FleetSimulator.start(count: 3, first: "127.0.\(subnet).2:\(port)")
        }
        let fleet = try #require(sim)
        let range = "127.0.\(subnet).2-127.0.\(subnet).4:\(port)"
        let run = try await CLI.mcumgr(["fleet", "upgrade", image, "--udp-range", range, "--dry-run", "--json"])
        Expect.success(run)
        let answer = try run.json()
        #expect(answer["action"] as? String == "fleet-dry-run")
        #expect((answer["totals"] as? [String: Int])?["upload"] == 3, "\(run)")
        let entries = try #require(answer["devices"] as? [[String: Any]])
        #expect(entries.map { $0["connection"] as? String } == (2...4).map { "udp:127.0.\(subnet).\($0):\(port)" })
        #expect(entries.allSatisfy { ($0["steps"] as? [String])?.first?.hasPrefix("upload image 0 (") == true })
        let human = try await CLI.mcumgr(["fleet", "upgrade", image, "--udp-range", range, "--dry-run"])
        Expect.success(human)
        #expect(human.stdout.contains("Dry run: 3 devices: 3 upload, 0 test, 0 confirm, 0 nothing, 0 refuse, 0 unreadable"), "\(human)")
        let counts = try await fleet.stop()
        #expect(counts.map(\.uploads) == [0, 0, 0])
    }

    @Test("the simulator's --faulty choice is the seed's, and printed per address")
    func faultyIsSeeded() async throws {
        let sim = try await FleetSimulator.start(count: 8, ["--faulty", "4", "--seed", "5"])
        let plan = SimulatorFaultPlan(count: 8, faulty: 4, seed: 5)
        #expect(sim.devices.map(\.fault) == (0..<8).map { plan[$0]?.rawValue })
        #expect(Set(sim.devices.compactMap(\.fault)) == ["drop", "reset", "busy", "refuse"])
        #expect(Set(sim.devices.map { $0.address.split(separator: ":")[0] }).count == 8, "one address per device")
        _ = try await sim.stop()
    }

    @Test("no device reachable: exit status 3")
    func noneReachable() async throws {
        let image = try await TestImages.make(version: "2.0.0", payloadSize: 4 * 1024, seed: 24)
        let subnet = Int.random(in: 10...250)
        let run = try await CLI.mcumgr([
            "fleet", "upgrade", image, "--udp-range", "127.1.\(subnet).2-127.1.\(subnet).3:9", "--timeout", "0.3", "--step-timeout", "2",
        ], timeout: 120)
        Expect.failure(run, status: 3, mentioning: "no device could be reached")
        #expect(run.stdout.contains("0 upgraded, 0 unchanged, 2 failed"), "\(run)")
    }

    @Test("`sim` lines of a devices file are built-in simulated devices (mcumgr registers that connector with its factory)")
    func simulatedDevices() async throws {
        let devices = CLI.temporaryDirectory().appendingPathComponent("devices.txt").path
        try Data("sim left\ntype=sim right\n".utf8).write(to: URL(fileURLWithPath: devices))
        let list = try await CLI.mcumgr(["fleet", "list", "--devices", devices, "--json"])
        Expect.success(list)
        let listed = try #require(try list.json()["devices"] as? [[String: Any]])
        #expect(listed.map { $0["name"] as? String } == ["left", "right"])
        #expect(listed.map { $0["connection"] as? String } == ["sim", "sim"])
        #expect(listed.map { $0["version"] as? String } == ["1.0.0", "1.0.0"], "\(list)")
    }

    @Test("usage errors: no devices named, a bad devices file line, a missing devices file, bad upgrade options")
    func usageErrors() async throws {
        let image = try await TestImages.make(version: "2.0.0", payloadSize: 4 * 1024, seed: 25)
        Expect.failure(try await CLI.mcumgr(["fleet", "upgrade", image]), status: 2, mentioning: "--devices FILE or --udp-range RANGE")
        let bad = CLI.temporaryDirectory().appendingPathComponent("devices.txt").path
        try Data("udp:127.0.0.2:1337 a\nudp:127.0.0.3 b c\n".utf8).write(to: URL(fileURLWithPath: bad))
        Expect.failure(try await CLI.mcumgr(["fleet", "upgrade", image, "--devices", bad]), status: 2, mentioning: "line 2")
        Expect.failure(try await CLI.mcumgr(["fleet", "list", "--devices", "/nonexistent/devices.txt"]), status: 4, mentioning: "/nonexistent/devices.txt")
        Expect.failure(try await CLI.mcumgr(["fleet", "list", "--udp-range", "127.0.0.9-127.0.0.2"]), status: 2, mentioning: "below the first")
        // The upgrade options are checked as `upgrade` checks them.
        for (option, value) in [("--image-index", "-1"), ("--mode", "sideways"), ("--reset-timeout", "0")] {
            let result = try await CLI.mcumgr(["fleet", "upgrade", image, "--udp-range", "127.0.0.2-127.0.0.3", option, value])
            Expect.failure(result, status: 2, mentioning: option)
        }
    }
}
