import Foundation
import McuBoot
import SMP
import SMPTestSupport
import Testing

/// `mcumgr` with DFU packages (as NCS builds them: imgtool images and a manifest in either layout)
/// and SUIT envelopes against `mcumgr-sim`.
@Suite("DFU package and SUIT commands")
struct PackageCommandTests {
    /// An nRF5340-like package: a small application image (0) and a larger network core image (1).
    static func package(layout: DFUPackageWriter.Layout, netSize: Int = 24_000) async throws -> (path: String, app: String, net: String) {
        let app = try await TestImages.make(version: "2.0.0", payloadSize: 12_000, seed: 51)
        let net = try await TestImages.make(version: "2.1.0", payloadSize: netSize, seed: 52)
        let files: [DFUPackageWriter.File] = [
            .init(name: "app_update.bin", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: app))), image: 0, version: "2.0.0+0"),
            .init(name: "net_core_app_update.bin", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: net))), image: 1, version: "2.1.0+0"),
        ]
        let path = CLI.temporaryDirectory().appendingPathComponent("dfu_application.zip").path
        try DFUPackageWriter.write(files, layout: layout, to: path)
        return (path, app, net)
    }

    /// The image table `image list --json` gives.
    static func slots(_ sim: SimulatorProcess) async throws -> [[String: Any]] {
        let list = try await sim.mcumgr(["image", "list", "--json"])
        Expect.success(list)
        let json = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any]
        return json?["images"] as? [[String: Any]] ?? []
    }

    @Test("upgrade pkg.zip: both images active and confirmed, hashes equal to the package's", arguments: DFUPackageWriter.Layout.allCases)
    func upgrade(layout: DFUPackageWriter.Layout) async throws {
        let (path, app, net) = try await Self.package(layout: layout)
        try await withSimulator { sim in
            let result = try await sim.mcumgr(["upgrade", path, "--json"])
            Expect.success(result)
            let answer = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect(answer?["uploaded_images"] as? [Int] == [0, 1], "\(result)")
            #expect(answer?["resets"] as? Int == 1)
            let slots = try await Self.slots(sim)
            for (image, file) in [(0, app), (1, net)] {
                let running = slots.first { $0["image"] as? Int == image && $0["active"] as? Bool == true }
                #expect(running?["hash"] as? String == (try TestImages.hash(of: file)), "\(slots)")
                #expect(running?["confirmed"] as? Bool == true)
            }
        }
    }

    @Test("interrupted at half of image 1 and run again, the upgrade resumes without sending image 0 again")
    func resume() async throws {
        let (path, _, _) = try await Self.package(layout: .sysbuild, netSize: 40_000)
        // Image 0 is about 12 kB: the link drops once, at 20 kB of image 1's upload, for 15 s; the upgrade
        // is killed then, half way through image 1.
        try await withSimulator(["--disconnect-at", "20000", "--reconnect-delay", "15000"], logsRequests: true) { sim in
            let directory = CLI.temporaryDirectory()
            let child = try Subprocess.launch(
                try BuiltProducts.require("mcumgr"), ["--udp", sim.address, "upgrade", path],
                stdout: directory.appendingPathComponent("out"), stderr: directory.appendingPathComponent("err"),
                environment: ["MCUMGR_CONFIG_DIR": CLI.isolatedConfigDirectory])
            let dropDeadline = ContinuousClock.now + TestTimeScale.scaled(.seconds(60))
            while !sim.log.contains("dropped during upload"), ContinuousClock.now < dropDeadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(sim.log.contains("dropped during upload"), "\(sim.log)")
            child.kill()
            // Killed, or failed on its own while the link was down: either way it did not finish.
            #expect(await child.exitStatus() != 0)
            let uploadsBefore = sim.requestLog.filter { $0.contains(" group=1 cmd=1 ") }.count
            // Wait for the link to come back.
            let deadline = ContinuousClock.now + TestTimeScale.scaled(.seconds(60))
            while try await sim.mcumgr(["echo", "up", "--timeout", "0.5"]).status != 0, ContinuousClock.now < deadline {}
            let second = try await sim.mcumgr(["upgrade", path, "--json"])
            Expect.success(second)
            let answer = try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any]
            #expect(answer?["uploaded_images"] as? [Int] == [1], "image 0 is not sent again: \(second)")
            let again = sim.requestLog.filter { $0.contains(" group=1 cmd=1 ") }.dropFirst(uploadsBefore)
            #expect(again.count < 60, "the second run resumes image 1: \(again.count) chunks")
            let slots = try await Self.slots(sim)
            #expect(slots.filter { $0["active"] as? Bool == true && $0["confirmed"] as? Bool == true }.count == 2, "\(slots)")
        }
    }

    /// The malformed packages: each a one-line reason and exit 4, within a second, the device untouched.
    static func malformed() async throws -> [(name: String, path: String, mention: String)] {
        let directory = CLI.temporaryDirectory()
        func at(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let image = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try await TestImages.make(version: "3.0.0", payloadSize: 4000, seed: 61))))
        let other = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try await TestImages.make(version: "3.0.1", payloadSize: 4000, seed: 62))))
        let good = DFUPackageWriter.File(name: "app.bin", bytes: image)
        var cases: [(String, String, String)] = []
        try DFUPackageWriter.write([good], manifest: DFUPackageWriter.manifest([good, .init(name: "net.bin", bytes: other, image: 1)], layout: .legacy), to: at("missing.zip"))
        cases.append(("a missing file", at("missing.zip"), "net.bin, which is not in the package"))
        try DFUPackageWriter.write([good], manifest: DFUPackageWriter.manifest([good], layout: .sysbuild).replacingOccurrences(of: "\"size\": \(image.count)", with: "\"size\": 99"), to: at("size.zip"))
        cases.append(("a size mismatch", at("size.zip"), "manifest.json gives 99"))
        try DFUPackageWriter.write([.init(name: "app.bin", bytes: Array("not an image".utf8))], layout: .legacy, to: at("notimage.zip"))
        cases.append(("not an MCUboot image", at("notimage.zip"), "not a valid MCUboot image"))
        try DFUPackageWriter.write([good, .init(name: "app2.bin", bytes: other)], layout: .sysbuild, to: at("twice.zip"))
        cases.append(("two files for one image", at("twice.zip"), "are both for image 0"))
        let manifest = "{\"files\": [{\"file\": \"app.bin\", \"image_index\": \"0\"}]}"
        // 100 MiB written on a thread of its own: on the pool it would stall other tests' sessions.
        let bomb = at("bomb.zip"), lying = at("lying.zip")
        try await OwnThread.run {
            try DFUPackageWriter.bomb(name: "app.bin", size: 100 << 20, declaredSize: 100 << 20, manifest: manifest, to: bomb)
            try DFUPackageWriter.bomb(name: "app.bin", size: 100 << 20, declaredSize: 4096, manifest: manifest, to: lying)
        }
        cases.append(("a zip bomb", at("bomb.zip"), "zip bomb"))
        cases.append(("a zip bomb whose header lies", at("lying.zip"), "zip bomb"))
        try DFUPackageWriter.zip([("app.bin", image)], to: at("nomanifest.zip"))
        cases.append(("no manifest", at("nomanifest.zip"), "no manifest.json"))
        try DFUPackageWriter.write([good], manifest: "{\"files\": [", to: at("badjson.zip"))
        cases.append(("a manifest that is not JSON", at("badjson.zip"), "invalid manifest.json"))
        try Data("PK\u{3}\u{4} truncated".utf8).write(to: URL(fileURLWithPath: at("broken.zip")))
        cases.append(("a broken zip", at("broken.zip"), "not a zip archive"))
        return cases
    }

    @Test("each malformed package is exit 4 with a one-line reason, within a second, before anything is sent")
    func malformedPackages() async throws {
        let cases = try await Self.malformed()
        try await withSimulator(logsRequests: true) { sim in
            let timesFile = CLI.temporaryDirectory().appendingPathComponent("times").path
            for (name, path, mention) in cases {
                for command in [["upgrade", path], ["image", "upload", path]] {
                    // Timed by /usr/bin/time: the processor time the tool spends (start-up included), which
                    // another process's load on this machine does not stretch as it does the wall clock.
                    let result = try await CLI.run(
                        "/usr/bin/time", ["-f", "%U %S", "-o", timesFile, try BuiltProducts.require("mcumgr"), "--udp", sim.address] + command)
                    Expect.failure(result, status: 4, mentioning: mention)
                    // The last line: GNU time puts "Command exited with non-zero status 4" before it.
                    let last = try String(contentsOfFile: timesFile, encoding: .utf8).split(separator: "\n").last ?? ""
                    let seconds = last.split(separator: " ").compactMap { Double($0) }
                    #expect(seconds.count == 2 && seconds.reduce(0, +) < 1, "\(name): \(seconds) s of processor time")
                }
            }
            #expect(sim.requestLog.isEmpty, "nothing reached the device: \(sim.requestLog)")
        }
    }

    @Test("image info pkg.zip shows each image with its number")
    func info() async throws {
        let (path, _, _) = try await Self.package(layout: .legacy)
        let result = try await CLI.mcumgr(["image", "info", path])
        Expect.success(result)
        #expect(result.stdout.contains("dfu_application.zip:app_update.bin (image 0)"))
        #expect(result.stdout.contains("dfu_application.zip:net_core_app_update.bin (image 1)"))
        #expect(result.stdout.contains("2.1.0"))
    }

    @Test("upgrade x.suit: the device asks for the file beside the envelope and gets it; suit list shows the new sequence number")
    func suit() async throws {
        let directory = CLI.temporaryDirectory()
        let radio = TestImages.payload(size: 5000, seed: 71)
        try Data(radio).write(to: directory.appendingPathComponent("radio.bin"))
        var builder = SUITEnvelopeBuilder(sequenceNumber: 9)
        builder.resources = [("file://radio.bin", radio)]
        let envelope = directory.appendingPathComponent("root.suit").path
        try Data(try builder.build()).write(to: URL(fileURLWithPath: envelope))
        let info = try await CLI.mcumgr(["image", "info", envelope])
        Expect.success(info)
        #expect(info.stdout.contains("sequence number:    9") && info.stdout.contains("file://radio.bin (5000 bytes)"), "\(info)")
        try await withSimulator(["--suit"], logsRequests: true) { sim in
            let before = try await sim.mcumgr(["suit", "list"])
            Expect.success(before)
            #expect(before.stdout.contains("0x20 (application root manifest): sequence number 1"), "\(before)")
            let result = try await sim.mcumgr(["upgrade", envelope])
            Expect.success(result)
            #expect(sim.requestLog.filter { $0.contains(" group=66 cmd=4 ") }.count > 0, "the requested image was sent")
            let after = try await sim.mcumgr(["suit", "list"])
            #expect(after.stdout.contains("0x20 (application root manifest): sequence number 9"), "\(after)")
            let state = try await sim.mcumgr(["suit", "state", "0x20", "--json"])
            Expect.success(state)
            #expect(state.stdout.contains("\"sequence_number\":9") || state.stdout.contains("\"sequence_number\" : 9"), "\(state)")
        }
    }

    @Test("crash, run test and run list work against the simulator and appear in --help with the Go CLI's names")
    func crashAndRun() async throws {
        let help = try await CLI.mcumgr(["--help"])
        for name in ["crash", "run", "suit"] { #expect(help.stdout.contains("\n  \(name) "), "\(name) in \(help.stdout)") }
        let crashHelp = try await CLI.mcumgr(["crash", "--help"])
        #expect(crashHelp.stdout.contains("div0") && crashHelp.stdout.contains("wdog"))
        let runHelp = try await CLI.mcumgr(["run", "--help"])
        #expect(runHelp.stdout.contains("test") && runHelp.stdout.contains("list"))
        try await withSimulator { sim in
            Expect.success(try await sim.mcumgr(["crash", "div0"]))
            let deadline = ContinuousClock.now + TestTimeScale.scaled(.seconds(10))
            var log = ""
            while !log.contains("reset reason: crash (div0)"), ContinuousClock.now < deadline {
                log = try await sim.mcumgr(["log", "show"]).stdout
            }
            #expect(log.contains("reset reason: crash (div0)"), "\(log)")
            let list = try await sim.mcumgr(["run", "list"])
            Expect.success(list)
            #expect(list.stdout.contains("cbor_test"))
            Expect.success(try await sim.mcumgr(["run", "test", "cbor_test", "tok"]))
            Expect.failure(try await sim.mcumgr(["run", "test", "nope"]), status: 1)
            Expect.failure(try await sim.mcumgr(["crash", "boom"]), status: 2)
        }
    }
}
