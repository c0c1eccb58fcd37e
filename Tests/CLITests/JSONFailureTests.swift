import Foundation
import SMP
import SMPTestSupport
import Testing

import Glibc

/// With `--json`, every failure is a JSON object on standard output too; Ctrl-C during an upgrade says where it stands.
@Suite("--json failures and interrupted upgrades (issue 32)")
struct JSONFailureTests {
    @Test("with --json, a failure is also a JSON object on standard output, for every exit status", arguments: [1, 2, 3, 4])
    func jsonFailure(status: Int32) async throws {
        let port = try ClosedUDPPort.make()
        let arguments: [String]
        switch status {
        case 1: arguments = ["image", "test", String(repeating: "ab", count: 32)]  // the built-in simulator: no such hash
        case 2: arguments = ["image", "list", "--no-such-option"]
        case 3: arguments = ["--udp", "127.0.0.1:\(port)", "echo", "x"]
        default: arguments = ["image", "upload", "/nonexistent/app.bin"]
        }
        let result = try await CLI.mcumgr(["--json"] + arguments, timeout: 60)
        #expect(result.status == status, "\(result)")
        let error = try #require(try result.json()["error"] as? [String: Any], "\(result)")
        #expect(error["kind"] as? String == ["1": "device", "2": "usage", "3": "transport", "4": "input"]["\(status)"])
        #expect((error["message"] as? String).map { result.stderr.contains($0) } == true, "\(result)")
        for key in ["device_rc", "group", "group_rc"] { #expect(error.keys.contains(key), "\(error)") }
        if status == 1 {
            #expect(error["group"] as? Int == 1)
            #expect(error["group_rc"] as? Int == 8)  // IMG_MGMT_ERR_HASH_NOT_FOUND
            #expect(error["device_rc"] is NSNull)
        } else {
            #expect(error["group_rc"] is NSNull)
        }
    }

    @Test("with --json, Ctrl-C during an upgrade prints where it stands as a JSON error (130); running it again resumes and counts only the bytes it sent")
    func interruptedUpgrade() async throws {
        let folder = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = try await TestImages.make(version: "2.0.0", payloadSize: 384 * 1024, seed: 32)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: image)[.size] as? Int)
        // 40 ms an answer: the upload takes seconds, time enough to interrupt it in the middle.
        try await withSimulator(["--latency", "40", "--boot-time", "200", "--reset-delay", "50"]) { sim in
            let child = try Subprocess.launch(
                try BuiltProducts.require("mcumgr"), ["--udp", sim.address, "--json", "upgrade", image],
                stdout: folder.appendingPathComponent("stdout"), stderr: folder.appendingPathComponent("stderr"),
                environment: ["MCUMGR_CONFIG_DIR": CLI.isolatedConfigDirectory])
            defer { child.kill() }
            // Off a terminal the upload prints a line at each 10 %: interrupt after the first.
            let started = try await child.awaitOutput(within: SimulatorProcess.startLimit) { _ in
                child.stderr.contains("image 0: 10%") ? true : nil
            }
            try #require(started == true, "the upload did not start: \(child.stderr)")
            child.signal(SIGINT)
            let status = try await HostileInputTests.exitStatus(of: child)
            #expect(status == 130, "exit \(status): \(child.stderr)")
            #expect(child.stderr.contains("upgrade interrupted while uploading, image 0 "), "\(child.stderr)")
            #expect(child.stderr.contains("run the same command again to resume the upload"), "\(child.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(child.stdout.utf8)) as? [String: Any], "\(child.stdout)")
            let error = try #require(report["error"] as? [String: Any])
            #expect(error["kind"] as? String == "interrupted")

            let again = try await sim.mcumgr(["--json", "upgrade", image])
            Expect.success(again)
            let sent = try #require(try again.json()["bytes_uploaded"] as? Int, "\(again)")
            #expect(sent > 0 && sent < size, "the resumed upload counted \(sent) of \(size) bytes as sent")
        }
    }
}
