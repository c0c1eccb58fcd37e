import Foundation
import SMPTestSupport
import Testing

/// `mcumgr --serial PTY` against `mcumgr-sim --serial` with console noise: every group and a full upgrade.
@Suite("mcumgr over serial")
struct SerialCommandTests {
    /// Runs `mcumgr --serial PATH --line-length N …` against `sim`.
    static func mcumgr(_ sim: SimulatorProcess, lineLength: Int, _ arguments: [String]) async throws -> CLI.Result {
        try await CLI.mcumgr(["--serial", sim.serialPath ?? "", "--line-length", String(lineLength), "--timeout", "10"] + arguments)
    }

    @Test("every group over a console with log lines between frames", arguments: [127, 512])
    func everyGroup(lineLength: Int) async throws {
        let sim = try await SimulatorProcess.startSerial(["--console-noise", "--line-length", String(lineLength)], logsRequests: false)
        defer { sim.stop() }
        let run = { (arguments: [String]) in try await Self.mcumgr(sim, lineLength: lineLength, arguments) }

        let echo = try await run(["echo", "hello over serial"])
        Expect.success(echo)
        #expect(echo.stdout.contains("hello over serial"))
        let params = try await run(["params", "--json"])
        Expect.success(params)
        #expect(try params.json()["buf_size"] as? Int == 2048)
        Expect.success(try await run(["taskstat"]))
        Expect.success(try await run(["image", "list"]))
        Expect.success(try await run(["image", "slot-info"]))
        let stats = try await run(["stat", "list"])
        Expect.success(stats)
        Expect.success(try await run(["config", "write", "serial/greeting", "hi"]))
        let setting = try await run(["config", "read", "serial/greeting"])
        Expect.success(setting)
        #expect(setting.stdout.contains("hi"))

        let file = CLI.temporaryDirectory().appendingPathComponent("f.bin")
        let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try Data(bytes).write(to: file)
        Expect.success(try await run(["fs", "upload", file.path, "/lfs1/f.bin"]))
        let back = CLI.temporaryDirectory().appendingPathComponent("back.bin")
        Expect.success(try await run(["fs", "download", "/lfs1/f.bin", back.path]))
        #expect(try [UInt8](Data(contentsOf: back)) == bytes)
        let shell = try await run(["shell", "exec", "echo", "from", "the", "shell"])
        Expect.success(shell)
        #expect(shell.stdout.contains("from the shell"))
        Expect.success(try await run(["enum", "count"]))
        Expect.success(try await run(["datetime", "set", "2026-11-24T10:00:00"]))
        Expect.success(try await run(["datetime", "get"]))
    }

    @Test("a full test-and-confirm upgrade of a 220 KiB image: the new image runs confirmed", arguments: [127, 512])
    func upgrade(lineLength: Int) async throws {
        let file = try await TestImages.make(version: "1.3.0", payloadSize: 220 * 1024, seed: 31)
        let hash = try TestImages.hash(of: file)
        let sim = try await SimulatorProcess.startSerial(
            ["--console-noise", "--line-length", String(lineLength), "--baud", "1000000", "--boot-time", "200", "--reset-delay", "50"],
            logsRequests: false)
        defer { sim.stop() }
        let result = try await Self.mcumgr(sim, lineLength: lineLength, ["upgrade", file])
        Expect.success(result)
        // MCUboot (the simulator) checked the SHA-256 over the slot's bytes before booting the image.
        #expect(result.stdout.contains(" image=0 slot=0\n    version: 1.3.0\n    bootable: true\n    flags: active confirmed\n    hash: \(hash)"), "\(result)")
    }
}
