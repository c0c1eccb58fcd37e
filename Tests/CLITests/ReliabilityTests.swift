import Foundation
import SMPTestSupport
import Testing

/// What `mcumgr` and `mcumgr-sim` do with hostile devices and careless input (reliability issue,
/// defects 2, 4, 5 and 8): one line on standard error, the documented exit status, bounded time.
@Suite("mcumgr against hostile devices and careless input")
struct ReliabilityTests {
    /// A UDP port nobody listens on.
    static func closedPort() async throws -> Int {
        let sim = try await SimulatorProcess.start()
        let port = sim.port
        sim.stop()
        return port
    }

    // MARK: Defect 2: fs download

    @Test("fs download to an unwritable destination fails in one line before the first request")
    func downloadToUnwritableDestination() async throws {
        // Nobody listens: a request would end in a timeout (exit 3); the destination is checked first.
        let port = try await Self.closedPort()
        let missing = "/nonexistent-\(UUID().uuidString)/out.bin"
        let result = try await CLI.mcumgr(["fs", "download", "/lfs1/x", missing, "--udp", "127.0.0.1:\(port)", "--timeout", "5"])
        Expect.failure(result, status: 4, mentioning: "cannot write \(missing)")
        #expect(result.stderr.contains("does not exist"))
    }

    @Test("fs download of an empty {} answer exits 1 naming the field and leaves no file")
    func downloadOfEmptyAnswer() async throws {
        let folder = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("out.bin").path
        try await withHostileDevice(answering: "empty") { device in
            let result = try await device.mcumgr(["fs", "download", "/lfs1/x", destination])
            Expect.failure(result, status: 1, mentioning: "invalid response")
            #expect(result.stderr.contains("\"off\""))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    // MARK: Defect 4: errors never read as success

    @Test("an empty {} answer to image list, stat list, mpstat or bootloader exits 1 naming the field", arguments: [
        (["image", "list"], "images"), (["stat", "list"], "stat_list"),
        // Issue 33, defect 7: these two printed an empty table and "bootloader: unknown" and exited 0.
        (["mpstat"], "mpools"), (["bootloader"], "bootloader"),
    ])
    func emptyAnswers(command: [String], field: String) async throws {
        try await withHostileDevice(answering: "empty") { device in
            let result = try await device.mcumgr(command)
            Expect.failure(result, status: 1, mentioning: "\"\(field)\"")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test("an err whose group does not fit 16 bits exits 1, not 0")
    func errGroupTooLarge() async throws {
        try await withHostileDevice(answering: "err-group") { device in
            Expect.failure(try await device.mcumgr(["image", "list"]), status: 1, mentioning: "16-bit \"group\"")
        }
    }

    // MARK: Defect 5: device parameters

    @Test("buf_count 300 (real, or reported by a device with 4 buffers): uploads work with the default depth", arguments: [
        ["--buf-count", "300"], ["--report-buf-count", "300"],
    ])
    func bufferCount300(simulator: [String]) async throws {
        let file = try await TestImages.make(version: "1.2.0", payloadSize: 48 * 1024, seed: 3)
        try await withSimulator(simulator) { sim in
            let result = try await sim.mcumgr(["image", "upload", file])
            Expect.success(result)
            #expect(result.stdout.contains("Done: uploaded"))
        }
    }

    @Test("buf_size 0, 10 or -1 reported by the device is a device error (exit 1) naming it", arguments: ["0", "10", "-1"])
    func impossibleBufferSize(size: String) async throws {
        let file = try await TestImages.make(version: "1.2.0", payloadSize: 4096, seed: 4)
        try await withSimulator(["--report-buf-size=\(size)"]) { sim in
            let result = try await sim.mcumgr(["image", "upload", file])
            Expect.failure(result, status: 1, mentioning: "buf_size \(size)")
            #expect(result.stderr.contains("invalid response"))
        }
    }

    // MARK: Defect 8: exit statuses and messages

    @Test("a request too large for the packet limit is a usage error (2)")
    func requestTooLarge() async throws {
        try await withSimulator { sim in
            let result = try await sim.mcumgr(["echo", String(repeating: "x", count: 3000)])
            Expect.failure(result, status: 2, mentioning: "exceeds the 1472-byte packet limit")
        }
    }

    @Test("a malformed answer is an invalid response (1) at once, not a timeout (3)", arguments: ["garbage", "lying-length", "not-a-map"])
    func malformedAnswer(kind: String) async throws {
        try await withHostileDevice(answering: kind) { device in
            // With a 20 s timeout, a timeout would also take far longer than the test's limit.
            let result = try await device.mcumgr(["echo", "hello", "--timeout", "20"], timeout: 15)
            Expect.failure(result, status: 1, mentioning: "invalid response")
            #expect(!result.stderr.contains("no response"))
        }
    }

    @Test("a big integer rc is named as such (exit 1)")
    func bigIntegerRC() async throws {
        try await withHostileDevice(answering: "big-rc") { device in
            Expect.failure(try await device.mcumgr(["echo", "hello"]), status: 1, mentioning: "an integer too big for a status")
        }
    }

    @Test("/dev/null as an image says it is empty (exit 4)", arguments: [["image", "upload"], ["upgrade"]])
    func devNullImage(command: [String]) async throws {
        let result = try await CLI.mcumgr(command + ["/dev/null"])
        Expect.failure(result, status: 4, mentioning: "/dev/null is empty")
    }

    @Test("mcumgr-sim refuses --slot-size 0 and takes sizes in hexadecimal")
    func simulatorSizes() async throws {
        let refused = try await CLI.run(try BuiltProducts.require("mcumgr-sim"), ["--slot-size", "0", "--udp", "127.0.0.1:0"], timeout: 30)
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.stderr.contains("--slot-size"), "\(refused)")
        let word = try await CLI.run(try BuiltProducts.require("mcumgr-sim"), ["--slot-size", "big", "--udp", "127.0.0.1:0"], timeout: 30)
        #expect(word.status != 0 && word.stderr.contains("0x hexadecimal"), "\(word)")

        try await withSimulator(["--slot-size", "0x40000", "--buf-size", "0x400", "--image-size", "0x1000"]) { sim in
            let result = try await sim.mcumgr(["params", "--json"])
            Expect.success(result)
            #expect(try result.json()["buf_size"] as? Int == 1024)
            let slots = try await sim.mcumgr(["image", "slot-info", "--json"])
            Expect.success(slots)
            #expect(slots.stdout.contains("262144"), "\(slots)")
        }
    }

    @Test("mcumgr takes --mtu and --max-size in hexadecimal")
    func mcumgrSizes() async throws {
        try await withSimulator { sim in
            Expect.success(try await sim.mcumgr(["echo", "hi", "--mtu", "0x200"]))
            let tooLong = try await sim.mcumgr(["echo", String(repeating: "y", count: 600), "--mtu", "0x200"])
            Expect.failure(tooLong, status: 2, mentioning: "512-byte packet limit")
        }
        Expect.failure(try await CLI.mcumgr(["echo", "x", "--mtu", "lots"]), status: 2, mentioning: "--mtu")
    }
}
