import Foundation
import McuBoot
import SMP
import SMPTestSupport
import Testing

import Glibc

/// Runs the built `mcumgr` (found by `BuiltProducts`) with its own profiles directory.
enum CLI {
    /// The package's root directory.
    static var packageRoot: URL { BuiltProducts.packageRoot }

    /// What a run printed and how it ended.
    typealias Result = ProcessOutput

    /// Runs `mcumgr` with `arguments` and returns its exit status and output.
    static func mcumgr(_ arguments: [String], environment extra: [String: String] = [:], timeout: Double = 120) async throws -> Result {
        try await run(try BuiltProducts.require("mcumgr"), arguments, environment: extra, timeout: timeout)
    }

    /// Runs `executable` with an isolated profiles directory and waits for it (killing it after `timeout` seconds).
    static func run(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:], timeout: Double = 120) async throws -> Result {
        var environment = ["MCUMGR_CONFIG_DIR": isolatedConfigDirectory]
        for (key, value) in extra { environment[key] = value }
        return try await Subprocess.run(executable, arguments, environment: environment, timeout: .milliseconds(Int(timeout * 1000)))
    }

    /// A profiles directory no run writes to unless a test asks (keeps the user's own profiles out of the tests).
    static let isolatedConfigDirectory = FileManager.default.temporaryDirectory
        .appendingPathComponent("mcumgr-cli-tests-\(UUID().uuidString)-config").path

    /// A fresh temporary directory.
    static func temporaryDirectory() -> URL {
        (try? Subprocess.temporaryDirectory("cli")) ?? FileManager.default.temporaryDirectory
    }
}

extension SimulatorProcess {
    /// Runs `mcumgr` against this simulator (`--udp ADDRESS` before the other arguments).
    func mcumgr(_ arguments: [String], timeout: Double = 120) async throws -> CLI.Result {
        try await CLI.mcumgr(["--udp", address] + arguments, timeout: timeout)
    }
}

/// MCUboot images for the tests, made with MCUboot's imgtool when the project venv has it
/// (`.venv/bin/imgtool`), else with `McuBootImageBuilder`, which writes the same bytes.
enum TestImages {
    /// Where imgtool is, if anywhere.
    static let imgtool: String? = {
        let path = BuiltProducts.venvTool("imgtool")
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    /// A pseudo-random payload of `size` bytes from `seed`.
    static func payload(size: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return random.bytes(size)
    }

    /// Writes an unsigned image of `version` with a `payloadSize`-byte payload to a new file and returns its path.
    static func make(version: String, payloadSize: Int, seed: UInt64) async throws -> String {
        let directory = CLI.temporaryDirectory()
        let output = directory.appendingPathComponent("app-\(version).bin").path
        let payload = payload(size: payloadSize, seed: seed)
        if let imgtool {
            let input = directory.appendingPathComponent("payload.bin").path
            try Data(payload).write(to: URL(fileURLWithPath: input))
            let result = try await CLI.run(imgtool, [
                "create", "--version", version, "--header-size", "0x200", "--pad-header", "--align", "4",
                "--slot-size", "0x80000", input, output,
            ])
            #expect(result.status == 0, "imgtool failed: \(result)")
        } else {
            var builder = McuBootImageBuilder(payload: payload, version: McuBootVersion(string: version)!)
            builder.headerSize = 0x200
            try Data(try builder.build()).write(to: URL(fileURLWithPath: output))
        }
        return output
    }

    /// The image's hash (SHA-256 TLV) in hex, as `image list` shows it.
    static func hash(of path: String) throws -> String {
        let image = try McuBootImage(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        return image.hash.map { String(format: "%02x", $0) }.joined()
    }
}
