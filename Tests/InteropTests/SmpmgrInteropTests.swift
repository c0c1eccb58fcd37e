import SMPTestSupport
import Foundation
import Testing

/// smpmgr (and the smpclient library under it) against `mcumgr-sim` over UDP port 1337.
/// Each test has its own loopback address, so they run in parallel.
@Suite("smpmgr against mcumgr-sim")
struct SmpmgrInteropTests {
    @Test("echo (sent as a write) and image state of the running images")
    func echoAndState() async throws {
        let sim = try await SimulatorProcess.launch(host: "127.0.0.2")
        let echo = try await sim.smpmgr("os", "echo", "hello simulator")
        #expect(echo.status == 0)
        #expect(echo.stdout.contains("r='hello simulator'"), "\(echo.stdout)")
        let state = try await sim.smpmgr("image", "state-read")
        let states = SmpmgrOutput.imageStates(state.stdout)
        #expect(states.count == 2, "\(state.stdout)")
        #expect(states.allSatisfy { $0.slot == 0 && $0.version == "1.0.0" && $0.active && $0.confirmed && !$0.pending })
        #expect(Set(states.map(\.image)) == [0, 1])
        #expect(sim.log.contains("group=0 cmd=0"))
        #expect(await sim.stop() == 0)
    }

    @Test("upload an imgtool image, test it, reset, see the swap, confirm")
    func upgrade() async throws {
        let image = try await TestImage.make(version: "1.2.3+7")
        #expect(image.bytes.count >= 200 * 1024)
        let sim = try await SimulatorProcess.launch(host: "127.0.0.3")
        let upload = try await sim.smpmgr("image", "upload", image.path)
        #expect(upload.status == 0, "\(upload.stdout)\(upload.stderr)")
        var states = SmpmgrOutput.imageStates(try await sim.smpmgr("image", "state-read").stdout)
        let uploaded = states.first { $0.image == 0 && $0.slot == 1 }
        #expect(uploaded?.hash == image.hashHex && uploaded?.version == "1.2.3.7")
        #expect(uploaded.map { !$0.pending && !$0.confirmed && !$0.active } == true)

        let test = try await sim.smpmgr("image", "state-write", image.hashHex)
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
        states = SmpmgrOutput.imageStates(try await sim.smpmgr("image", "state-read").stdout)
        #expect(states.first { $0.image == 0 && $0.slot == 1 }?.pending == true)

        let reset = try await sim.smpmgr("os", "reset")
        #expect(reset.status == 0)
        states = try await waitForState(sim) { $0.contains { $0.image == 0 && $0.slot == 0 && $0.hash == image.hashHex } }
        let running = states.first { $0.image == 0 && $0.slot == 0 }
        let previous = states.first { $0.image == 0 && $0.slot == 1 }
        #expect(running?.version == "1.2.3.7" && running?.active == true && running?.confirmed == false)
        #expect(previous?.version == "1.0.0" && previous?.confirmed == true)

        let confirm = try await sim.smpmgr("image", "state-write", "--confirm")
        #expect(confirm.status == 0, "\(confirm.stdout)\(confirm.stderr)")
        states = SmpmgrOutput.imageStates(try await sim.smpmgr("image", "state-read").stdout)
        #expect(states.first { $0.image == 0 && $0.slot == 0 }.map { $0.active && $0.confirmed } == true)
        #expect(states.first { $0.image == 0 && $0.slot == 1 }.map { !$0.confirmed && !$0.pending } == true)
        #expect(await sim.stop() == 0)
    }

    @Test("statistics, files, shell and enumeration through the smpmgr CLI")
    func groups() async throws {
        let sim = try await SimulatorProcess.launch(host: "127.0.0.4")
        let list = try await sim.smpmgr("statistics", "list")
        #expect(["smp_svr_stats", "smp", "flash"].allSatisfy { list.stdout.contains($0) }, "\(list.stdout)")
        let smp = try await sim.smpmgr("statistics", "get", "smp")
        #expect(smp.stdout.contains("name='smp'") && smp.stdout.contains("'rx_packets':"), "\(smp.stdout)")
        let ticks = try await sim.smpmgr("statistics", "smp_svr_stats")
        #expect(ticks.stdout.contains("'ticks':"), "\(ticks.stdout)")

        let directory = try Interop.temporaryDirectory("smpmgr-files")
        let local = directory.appendingPathComponent("notes.txt")
        let contents = String(repeating: "line of text\n", count: 400)
        try contents.write(to: local, atomically: true, encoding: .utf8)
        let upload = try await sim.smpmgr("file", "upload", local.path, "/lfs1/notes.txt")
        #expect(upload.status == 0, "\(upload.stderr)")
        let size = try await sim.smpmgr("file", "read-size", "/lfs1/notes.txt")
        #expect(size.stdout.split(separator: "\n").last.map(String.init)?.trimmingCharacters(in: .whitespaces) == "\(contents.utf8.count)")
        let hash = try await sim.smpmgr("file", "get-hash", "/lfs1/notes.txt")
        #expect(hash.stdout.contains("type='crc32'") && hash.stdout.contains("len=\(contents.utf8.count)"), "\(hash.stdout)")
        let types = try await sim.smpmgr("file", "get-supported-hash-types")
        #expect(types.stdout.contains("'sha256'") && types.stdout.contains("'crc32'"))
        let copy = directory.appendingPathComponent("copy.txt")
        let download = try await sim.smpmgr("file", "download", "/lfs1/notes.txt", copy.path)
        #expect(download.status == 0)
        #expect(try String(contentsOf: copy, encoding: .utf8) == contents)

        let shell = try await sim.smpmgr("shell", "echo hi from smpmgr")
        #expect(shell.stdout.contains("hi from smpmgr"), "\(shell.stdout)")
        let groups = try await sim.smpmgr("enum", "get-supported-groups")
        #expect(["OS_MANAGEMENT: 0", "IMAGE_MANAGEMENT: 1", "FILE_MANAGEMENT: 8", "ZEPHYR_MANAGEMENT: 63"].allSatisfy { groups.stdout.contains($0) }, "\(groups.stdout)")
        let details = try await sim.smpmgr("enum", "get-group-details", "1", "9")
        #expect(details.stdout.contains("name='img mgmt'") && details.stdout.contains("name='shell mgmt'"), "\(details.stdout)")
        #expect(await sim.stop() == 0)
    }

    @Test("smpclient: parameters, OS, settings, statistics, shell, enumeration, files, erase storage")
    func smpclientGroups() async throws {
        let sim = try await SimulatorProcess.launch(host: "127.0.0.5")
        let run = try await sim.python(PeerScripts.smpclientGroups)
        #expect(run.status == 0, "\(run.stderr)")
        let out = try run.json()
        #expect(out["params"] as? [Int] == [2048, 4])
        #expect((out["tasks"] as? [String])?.contains("idle") == true)
        #expect(out["datetime"] as? String == "2024-02-29T23:59:58" || (out["datetime"] as? String)?.hasPrefix("2024-03-01T00:00:0") == true)
        #expect(out["info"] as? String == "Zephyr mcumgr-sim 3.6.0")
        #expect(out["setting_read"] as? String == "blue")
        for step in ["setting_write", "setting_commit", "setting_save", "setting_load", "setting_delete", "erase_storage"] {
            #expect((out[step] as? [String: Any])?["ok"] as? Bool == true, "\(step): \(String(describing: out[step]))")
        }
        #expect((out["setting_after_delete"] as? [String: Any])?["ok"] as? Bool == false)
        #expect(out["stat_list"] as? [String] == ["smp_svr_stats", "smp", "flash"])
        #expect(((out["stat_smp"] as? [String: Int])?["rx_packets"] ?? 0) > 5)
        let shell = out["shell"] as? [Any]
        #expect(shell?.first as? String == "from smpclient\n" && shell?.last as? Int == 0)
        #expect(((out["shell_unknown"] as? [Any])?.last as? Int ?? 0) < 0)
        #expect(out["enum_count"] as? Int == 11)  // with Mynewt's crash (5) and run (7) groups
        let last = out["enum_last"] as? [Any]
        #expect(last?.first as? Int == 4 && last?.last as? Bool == true)
        #expect((out["enum_details"] as? [[Any]])?.map { $0.first as? Int } == [0, 63])
        #expect(out["file_len"] as? Int == 3000)
        #expect((out["file_after_erase"] as? [String: Any])?["ok"] as? Bool == false)
        #expect(await sim.stop() == 0)
    }

    @Test("smpmgr accepts a Zephyr-like device that sends indefinite-length maps")
    func indefiniteMaps() async throws {
        let sim = try await SimulatorProcess.launch(host: "127.0.0.6", arguments: ["--indefinite-maps"])
        let echo = try await sim.smpmgr("os", "echo", "indefinite")
        #expect(echo.stdout.contains("r='indefinite'") && echo.stdout.contains(#"\xbf"#), "\(echo.stdout)")
        let states = SmpmgrOutput.imageStates(try await sim.smpmgr("image", "state-read").stdout)
        #expect(states.count == 2)
        let stats = try await sim.smpmgr("statistics", "get", "smp")
        #expect(stats.stdout.contains("name='smp'"))
        #expect(await sim.stop() == 0)
    }

    /// Polls `image state-read` until the device answers with a state satisfying `done` (for at
    /// most 20 s times `TestTimeScale`: smpmgr starts a Python process per read).
    func waitForState(_ sim: SimulatorProcess, _ done: ([SmpmgrOutput.ImageState]) -> Bool) async throws -> [SmpmgrOutput.ImageState] {
        let deadline = ContinuousClock.now + TestTimeScale.scaled(.seconds(20))
        var last: [SmpmgrOutput.ImageState] = []
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            last = SmpmgrOutput.imageStates(try await sim.smpmgr("image", "state-read").stdout)
            if done(last) { return last }
        }
        Issue.record("state never matched; last: \(last)")
        return last
    }
}
