import Foundation
import SMP
import SMPTestSupport
import Testing

import Glibc

/// `conn add` saves `--timeout`, `--retries` and `--mtu`; `-c NAME` uses them.
@Suite("Profiles keep every connection setting they take (issue 32)")
struct ProfileSettingsTests {
    @Test("conn add NAME --timeout 1 --retries 0 saves both; -c NAME uses them, options given again win")
    func profileSettings() async throws {
        let silent = try SilentUDPSocket()
        let config = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: config) }
        let env = ["MCUMGR_CONFIG_DIR": config.path]
        let added = try await CLI.mcumgr(["conn", "add", "quiet", "--udp", "127.0.0.1:\(silent.port)", "--timeout", "1", "--retries", "0"], environment: env)
        Expect.success(added)
        #expect(added.stdout.contains("timeout=1 retries=0"), "\(added)")
        let shown = try await CLI.mcumgr(["conn", "show", "quiet", "--json"], environment: env)
        let profile = try #require((try shown.json()["connections"] as? [String: Any])?["quiet"] as? [String: Any], "\(shown)")
        #expect(profile["timeout"] as? Double == 1)
        #expect(profile["retries"] as? Int == 0)

        let used = try await CLI.mcumgr(["-c", "quiet", "echo", "x"], environment: env, timeout: 60)
        Expect.failure(used, status: 3, mentioning: "after 1 attempt; check the connection")
        #expect(used.stderr.contains("each attempt waited 1 s"), "\(used)")
        let overridden = try await CLI.mcumgr(["-c", "quiet", "--timeout", "0.5", "echo", "x"], environment: env, timeout: 60)
        Expect.failure(overridden, status: 3, mentioning: "each attempt waited 0.5 s")
    }

    @Test("a profile with a timeout out of range is refused in words (exit 4)")
    func profileSettingOutOfRange() async throws {
        let config = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: config) }
        try Data(#"{"version": 1, "connections": {"bad": {"type": "udp", "connstring": "127.0.0.1:9", "timeout": 0}}}"#.utf8)
            .write(to: config.appendingPathComponent("connections.json"))
        let result = try await CLI.mcumgr(["-c", "bad", "echo", "x"], environment: ["MCUMGR_CONFIG_DIR": config.path])
        Expect.failure(result, status: 4, mentioning: #""connections" → "bad" → "timeout" is not valid"#)
    }
}
