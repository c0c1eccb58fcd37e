import Foundation
import SMPTestSupport
import Testing

/// `mcumgr conformance` against `mcumgr-sim` processes: the table, --json, the exit statuses, and
/// the device left as found.
@Suite("mcumgr conformance")
struct ConformanceCommandTests {
    @Test("against the default simulator every check passes with --allow-writes --allow-reset, and the device is as before")
    func everyCheckPasses() async throws {
        try await withSimulator(["--boot-time", "100", "--reset-delay", "50"]) { sim in
            let file = CLI.temporaryDirectory().appendingPathComponent("scratch.bin")
            try Data((0..<900).map { UInt8(truncatingIfNeeded: $0 &* 13) }).write(to: file)
            Expect.success(try await sim.mcumgr(["fs", "upload", file.path, "/lfs1/scratch.bin"]))
            let image = try await TestImages.make(version: "2.0.0", payloadSize: 20_000, seed: 9)
            let before = try await sim.mcumgr(["image", "list", "--json"])

            let run = try await sim.mcumgr([
                "conformance", "--mtu", "4096", "--allow-writes", "--allow-reset", "--image", image,
                "--fs-path", "/lfs1/scratch.bin", "--settings-key", "app/conformance",
            ])
            Expect.success(run)
            #expect(run.stdout.hasPrefix("RESULT"))
            #expect(run.stdout.contains("47 checks: 46 passed, 1 skipped"), "\(run.stdout)")
            #expect(run.stdout.contains("skipped          transport.reassembly"))
            #expect(!run.stdout.contains("FAIL"))
            #expect(run.stderr.contains("[47/47] image.restored: pass"))

            #expect(try await sim.mcumgr(["image", "list", "--json"]).stdout == before.stdout)
            let back = CLI.temporaryDirectory().appendingPathComponent("back.bin")
            Expect.success(try await sim.mcumgr(["fs", "download", "/lfs1/scratch.bin", back.path]))
            #expect(try Data(contentsOf: back) == Data(contentsOf: file))
            Expect.failure(try await sim.mcumgr(["config", "read", "app/conformance"]), status: 1, mentioning: "KEY_NOT_FOUND")
        }
    }

    @Test("a quirk fails its check: exit 1, --json says which, -v shows the packets")
    func quirkFails() async throws {
        try await withSimulator(["--quirk", "wrong-seq"]) { sim in
            let json = try await sim.mcumgr(["conformance", "--json", "--only", "framing", "--only", "os.echo-read"])
            #expect(json.status == 1, "\(json)")
            #expect(json.stderr.contains("mcumgr: error: required checks failed: framing.sequence"))
            let report = try json.json()
            #expect(report["passed"] as? Bool == false)
            let checks = try #require(report["checks"] as? [[String: Any]])
            #expect(checks.count == 15)
            let sequence = try #require(checks.first { $0["id"] as? String == "framing.sequence" })
            #expect(sequence["status"] as? String == "fail")
            #expect((sequence["observed"] as? String)?.contains("sequence number (sent → answered: 0 → 1") == true)
            #expect((sequence["rationale"] as? String)?.contains("SMPBadSequence") == true)
            #expect((sequence["evidence"] as? [Any])?.isEmpty == true)
            #expect(checks.filter { $0["status"] as? String == "fail" }.count == 1)

            let verbose = try await sim.mcumgr(["conformance", "--only", "framing.sequence", "-v"])
            #expect(verbose.status == 1)
            #expect(verbose.stdout.contains("    -> 0a00"))
            #expect(verbose.stdout.contains("    <- 0b00"))
        }
    }

    @Test("a device that stops answering mid-run: exit 3, naming the check, within the timeouts")
    func stopsAnswering() async throws {
        // The device resets at the first upload chunk past 100 bytes and takes ten minutes to boot.
        try await withSimulator(["--reset-at", "100", "--boot-time", "600000"]) { sim in
            // The bound itself is checked in virtual time (UnresponsiveDeviceTests); here the
            // process must end well before the device would come back.
            let start = ContinuousClock.now
            let run = try await sim.mcumgr(["conformance", "--allow-writes", "--timeout", "0.5", "--retries", "1", "--only", "image", "--only", "os.echo-read"])
            #expect(run.status == 3, "\(run)")
            #expect(run.stdout.contains("stopped at image.upload-gap: the device stopped answering during image.upload-gap"))
            #expect(run.stderr.contains("mcumgr: error: stopped at image.upload-gap"))
            #expect(run.stdout.contains("not run: the run stopped at image.upload-gap"))
            #expect(ContinuousClock.now - start < TestTimeScale.scaled(.seconds(120)))
        }
    }

    @Test("--list, --only and its refusal")
    func listing() async throws {
        let list = try await CLI.mcumgr(["conformance", "--list"])
        Expect.success(list)
        #expect(list.stdout.hasPrefix("CHECK"))
        #expect(list.stdout.contains("framing.buffer-overflow"))
        #expect(list.stdout.contains("--allow-writes --allow-reset"))
        Expect.failure(try await CLI.mcumgr(["conformance", "--only", "framing.nonsense"]), status: 2, mentioning: "no such check or family")
        let sim = try await CLI.mcumgr(["conformance", "--only", "cbor"])
        Expect.success(sim)
        #expect(sim.stdout.contains("6 checks: 6 passed"))
    }

    @Test("every check is explained in docs/cli.md")
    func documented() async throws {
        let list = try await CLI.mcumgr(["conformance", "--list"])
        let docs = try String(contentsOf: CLI.packageRoot.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let ids = list.stdout.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").first }.filter { $0.contains(".") }
        #expect(ids.count == 47)
        for id in ids { #expect(docs.contains("`\(id)`"), "docs/cli.md does not explain \(id)") }
    }

    @Test("over a serial line a request spanning many console frames is reassembled")
    func reassemblyOverSerial() async throws {
        let sim = try await SimulatorProcess.startSerial([], logsRequests: false)
        defer { sim.stop() }
        let run = try await CLI.mcumgr(["--serial", sim.serialPath ?? "", "--timeout", "10", "conformance", "--only", "transport.reassembly", "--json"])
        Expect.success(run)
        let checks = try #require(try run.json()["checks"] as? [[String: Any]])
        #expect(checks.count == 1)
        #expect(checks.first?["status"] as? String == "pass")
        #expect((checks.first?["observed"] as? String)?.hasSuffix("link units of 93 was reassembled and echoed") == true, "\(run.stdout)")
        let text = try await CLI.mcumgr(["--serial", sim.serialPath ?? "", "--timeout", "10", "conformance", "--only", "transport.reassembly"])
        #expect(text.stdout.hasSuffix("1 check: 1 passed\n"), "\(text.stdout)")
    }

    @Test("mcumgr-sim refuses a quirk it does not know")
    func unknownQuirk() async throws {
        let run = try await CLI.run(try BuiltProducts.require("mcumgr-sim"), ["--quirk", "wrong-everything", "--udp", "127.0.0.1:0"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("wrong-everything"))
    }
}
