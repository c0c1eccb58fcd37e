import SMPTestSupport
import Foundation
import Testing

/// Exit statuses and one-line messages.
@Suite("mcumgr exit statuses")
struct ErrorTests {
    @Test("a wrong argument exits with 2")
    func usageErrors() async throws {
        Expect.failure(try await CLI.mcumgr(["image", "upload"]), status: 2, mentioning: "image upload --help")
        Expect.failure(try await CLI.mcumgr(["echo", "x", "--no-such-option"]), status: 2)
        Expect.failure(try await CLI.mcumgr(["frobnicate"]), status: 2)
        Expect.failure(try await CLI.mcumgr(["image", "test", "not-a-hash"]), status: 2, mentioning: "64 hex digits")
        Expect.failure(try await CLI.mcumgr(["echo", "x", "--udp", "127.0.0.1:99999"]), status: 2)
        Expect.failure(try await CLI.mcumgr(["echo", "x", "--udp", "127.0.0.1:1", "--sim"]), status: 2, mentioning: "one connection")
        Expect.failure(try await CLI.mcumgr(["upgrade", "a.bin", "--mode", "sideways"]), status: 2, mentioning: "--mode")
    }

    @Test("--help exits with 0")
    func help() async throws {
        let root = try await CLI.mcumgr(["--help"])
        Expect.success(root)
        #expect(root.stdout.contains("image"))
        #expect(root.stdout.contains("Exit status"))
        let upload = try await CLI.mcumgr(["image", "upload", "--help"])
        Expect.success(upload)
        #expect(upload.stdout.contains("--upgrade"))
    }

    @Test("a missing file exits with 4")
    func missingFile() async throws {
        let path = CLI.temporaryDirectory().appendingPathComponent("nothing.bin").path
        Expect.failure(try await CLI.mcumgr(["image", "upload", path]), status: 4, mentioning: "no such file")
        Expect.failure(try await CLI.mcumgr(["upgrade", path]), status: 4, mentioning: "no such file")
        Expect.failure(try await CLI.mcumgr(["fs", "upload", path, "/lfs1/x"]), status: 4, mentioning: "no such file")
    }

    @Test("a file that is not an MCUboot image exits with 4")
    func notAnImage() async throws {
        let path = CLI.temporaryDirectory().appendingPathComponent("plain.bin").path
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))
        Expect.failure(try await CLI.mcumgr(["image", "upload", path]), status: 4, mentioning: "not a valid MCUboot image")
        Expect.failure(try await CLI.mcumgr(["upgrade", path, "--json"]), status: 4, mentioning: "not a valid MCUboot image")
    }

    @Test("an unreachable host exits with 3")
    func unreachable() async throws {
        // A port nobody listens on: bind one, note it, close it.
        let sim = try await SimulatorProcess.start()
        let port = sim.port
        sim.stop()
        // The kernel's ICMP refusal ends it at once (issue 32), not the timeout.
        let result = try await CLI.mcumgr(["echo", "x", "--udp", "127.0.0.1:\(port)", "--timeout", "0.5", "--retries", "0"])
        Expect.failure(result, status: 3, mentioning: "127.0.0.1:\(port) refused the datagram")
        let json = try await CLI.mcumgr(["--json", "image", "list", "--udp", "127.0.0.1:\(port)", "--timeout", "0.5", "--retries", "0"])
        Expect.failure(json, status: 3)
        #expect((try json.json()["error"] as? [String: Any])?["kind"] as? String == "transport", "\(json)")
    }

    @Test("a send the host refuses exits with 3 and names the kernel's error, not only the socket's closing")
    func refusedSend() async throws {
        // The limited broadcast address without SO_BROADCAST: the kernel refuses the send and
        // SwiftNIO closes the socket; the failed send's own error must reach the user first.
        let result = try await CLI.mcumgr(["echo", "x", "--udp", "255.255.255.255:9", "--timeout", "5", "--retries", "0"])
        Expect.failure(result, status: 3, mentioning: "UDP send to")
        #expect(!result.stderr.contains("was closed after a send or receive error"))
    }

    @Test("a device error exits with 1 and names the error")
    func deviceError() async throws {
        try await withSimulator { sim in
            let unknown = String(repeating: "ab", count: 32)
            let result = try await sim.mcumgr(["image", "test", unknown])
            Expect.failure(result, status: 1, mentioning: "IMG_MGMT_ERR_HASH_NOT_FOUND")
            let json = try await sim.mcumgr(["image", "test", unknown, "--json"])
            Expect.failure(json, status: 1, mentioning: "IMG_MGMT_ERR_HASH_NOT_FOUND")
            #expect((try json.json()["error"] as? [String: Any])?["group_rc"] as? Int == 8, "\(json)")
            Expect.failure(try await sim.mcumgr(["stat", "read", "no-such-group"]), status: 1, mentioning: "STAT_MGMT_ERR_INVALID_GROUP")
        }
    }
}
