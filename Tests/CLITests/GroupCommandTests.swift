import SMPTestSupport
import Foundation
import Testing

/// stat, config, log, fs, shell and enum.
@Suite("mcumgr group commands")
struct GroupCommandTests {
    @Test("stat list and stat read (and Go's stat NAME)")
    func stat() async throws {
        try await withSimulator { sim in
            let list = try await sim.mcumgr(["stat", "list"])
            Expect.success(list)
            #expect(list.stdout.split(separator: "\n").contains("smp"))
            let listJSON = try await sim.mcumgr(["stat", "--json"])
            #expect((try listJSON.json()["groups"] as? [String])?.contains("smp") == true)

            let read = try await sim.mcumgr(["stat", "read", "smp"])
            Expect.success(read)
            #expect(read.stdout.hasPrefix("stat group: smp\n"))
            #expect(read.stdout.contains(" rx_packets"))
            let go = try await sim.mcumgr(["stat", "smp", "--json"])
            Expect.success(go)
            let answer = try go.json()
            #expect(answer["name"] as? String == "smp")
            #expect(((answer["fields"] as? [String: Any])?["rx_packets"] as? Int ?? 0) > 0)
        }
    }

    @Test("config write, read, delete, commit, load, save; text and --hex")
    func config() async throws {
        try await withSimulator { sim in
            Expect.success(try await sim.mcumgr(["config", "write", "app/greeting", "hello there"]))
            let read = try await sim.mcumgr(["config", "read", "app/greeting"])
            Expect.success(read)
            #expect(read.stdout == "hello there\n")
            let hex = try await sim.mcumgr(["config", "read", "app/greeting", "--hex"])
            #expect(hex.stdout == "68656c6c6f207468657265\n")

            let writeHex = try await sim.mcumgr(["config", "write", "app/raw", "00ff10", "--hex", "--json"])
            Expect.success(writeHex)
            #expect(try writeHex.json()["hex"] as? String == "00ff10")
            let readJSON = try await sim.mcumgr(["config", "read", "app/raw", "--json"]).json()
            #expect(readJSON["hex"] as? String == "00ff10")
            #expect(readJSON["name"] as? String == "app/raw")
            let readRaw = try await sim.mcumgr(["config", "read", "app/raw"])
            #expect(readRaw.stdout.contains("00ff10"))

            // Go's shorthand: config NAME VALUE writes, config NAME reads.
            Expect.success(try await sim.mcumgr(["config", "app/go", "short"]))
            #expect(try await sim.mcumgr(["config", "app/go"]).stdout == "short\n")
            #expect(try await sim.mcumgr(["config", "app/go", "--json"]).json()["text"] as? String == "short")

            for command in ["commit", "load", "save"] {
                let human = try await sim.mcumgr(["config", command])
                Expect.success(human)
                #expect(human.stdout == "Done\n")
                #expect(try await sim.mcumgr(["config", command, "--json"]).json()["action"] as? String == "config-\(command)")
            }
            Expect.success(try await sim.mcumgr(["config", "delete", "app/go"]))
            Expect.failure(try await sim.mcumgr(["config", "read", "app/go"]), status: 1, mentioning: "SETTINGS_MGMT_ERR_KEY_NOT_FOUND")
            Expect.failure(try await sim.mcumgr(["config", "write", "app/x", "zz", "--hex"]), status: 2)
        }
    }

    @Test("log show, clear, modules, levels, list")
    func log() async throws {
        try await withSimulator { sim in
            Expect.success(try await sim.mcumgr(["reset"]))
            try await Task.sleep(for: .milliseconds(800))
            let show = try await sim.mcumgr(["log", "show"])
            Expect.success(show)
            #expect(show.stdout.hasPrefix("log: sim"))
            let showJSON = try await sim.mcumgr(["log", "show", "sim", "--json"]).json()
            let logs = try #require(showJSON["logs"] as? [[String: Any]])
            let entries = try #require(logs.first?["entries"] as? [[String: Any]])
            #expect(entries.contains { ($0["msg"] as? String)?.contains("reset") == true })

            let modules = try await sim.mcumgr(["log", "modules"])
            Expect.success(modules)
            #expect(modules.stdout.contains("IMG"))
            #expect((try await sim.mcumgr(["log", "module_list", "--json"]).json()["modules"] as? [String: Int])?["IMG"] != nil)
            let levels = try await sim.mcumgr(["log", "levels"])
            #expect(levels.stdout.hasPrefix("DEBUG\nINFO"))
            #expect((try await sim.mcumgr(["log", "level_list", "--json"]).json()["levels"] as? [String])?.first == "DEBUG")
            let list = try await sim.mcumgr(["log", "list"])
            #expect(list.stdout == "sim\n")
            #expect(try await sim.mcumgr(["log", "list", "--json"]).json()["logs"] as? [String] == ["sim"])

            let clear = try await sim.mcumgr(["log", "clear"])
            Expect.success(clear)
            #expect(try await sim.mcumgr(["log", "clear", "--json"]).json()["ok"] as? Bool == true)
        }
    }

    @Test("fs upload, status, hash, hashes, download, close")
    func fs() async throws {
        let directory = CLI.temporaryDirectory()
        let local = directory.appendingPathComponent("data.bin").path
        let content = TestImages.payload(size: 20_000, seed: 5)
        try Data(content).write(to: URL(fileURLWithPath: local))
        try await withSimulator { sim in
            let upload = try await sim.mcumgr(["fs", "upload", local, "/lfs1/data.bin"])
            Expect.success(upload)
            #expect(upload.stdout.contains("upload: 100%"))
            #expect(upload.stdout.contains("Done: uploaded 20000 bytes"))
            let uploadJSON = try await sim.mcumgr(["fs", "upload", local, "/lfs1/copy.bin", "--json"]).json()
            #expect(uploadJSON["bytes"] as? Int == 20_000)

            let status = try await sim.mcumgr(["fs", "status", "/lfs1/data.bin"])
            #expect(status.stdout == "/lfs1/data.bin: 20000 bytes\n")
            #expect(try await sim.mcumgr(["fs", "status", "/lfs1/data.bin", "--json"]).json()["size"] as? Int == 20_000)

            let sha = try await sim.mcumgr(["fs", "hash", "/lfs1/data.bin", "--type", "sha256", "--json"]).json()
            #expect(sha["type"] as? String == "sha256")
            #expect((sha["output"] as? String)?.count == 64)
            let crc = try await sim.mcumgr(["fs", "hash", "/lfs1/data.bin"])
            Expect.success(crc)
            #expect(crc.stdout.hasPrefix("crc32 /lfs1/data.bin"))

            let hashes = try await sim.mcumgr(["fs", "hashes"])
            #expect(hashes.stdout.contains("sha256"))
            let hashesJSON = try await sim.mcumgr(["fs", "hashes", "--json"]).json()
            #expect(((hashesJSON["types"] as? [String: [String: Int]])?["sha256"])?["size"] == 32)

            let back = directory.appendingPathComponent("back.bin").path
            let download = try await sim.mcumgr(["fs", "download", "/lfs1/data.bin", back])
            Expect.success(download)
            #expect(download.stdout.contains("download: 100%"))
            #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: back))) == content)
            let downloadJSON = try await sim.mcumgr(["fs", "download", "/lfs1/copy.bin", back, "--json"]).json()
            #expect(downloadJSON["bytes"] as? Int == 20_000)

            Expect.success(try await sim.mcumgr(["fs", "close"]))
            #expect(try await sim.mcumgr(["fs", "close", "--json"]).json()["ok"] as? Bool == true)
            Expect.failure(try await sim.mcumgr(["fs", "status", "/lfs1/none"]), status: 1, mentioning: "FS_MGMT_ERR_FILE_NOT_FOUND")
        }
    }

    @Test("shell exec: output, return value as the exit status (ssh's rule), --check")
    func shell() async throws {
        try await withSimulator { sim in
            let echo = try await sim.mcumgr(["shell", "exec", "echo", "-n", "hi", "there"])
            Expect.success(echo)
            #expect(echo.stdout.contains("hi there"))
            let version = try await sim.mcumgr(["--json", "shell", "exec", "kernel", "version"])
            Expect.success(version)
            let answer = try version.json()
            #expect((answer["output"] as? String)?.contains("Zephyr version") == true)
            #expect(answer["ret"] as? Int == 0)

            // The simulator answers an unknown command as Zephyr does: ret -8 (ENOEXEC), so exit status 8.
            let unknown = try await sim.mcumgr(["shell", "exec", "no-such-command"])
            #expect(unknown.status == 8, "\(unknown)")
            #expect(unknown.stderr.contains("the command returned -8 (exit status 8)"), "\(unknown)")
            let unknownJSON = try await sim.mcumgr(["--json", "shell", "exec", "no-such-command"])
            #expect(unknownJSON.status == 8, "\(unknownJSON)")
            #expect(try unknownJSON.json()["ret"] as? Int == -8)
            let wrongCount = try await sim.mcumgr(["shell", "exec", "kernel", "nonsense"])
            #expect(wrongCount.status == 22, "\(wrongCount)")
            let checked = try await sim.mcumgr(["shell", "exec", "--check", "no-such-command"])
            Expect.failure(checked, status: 1, mentioning: "the command returned")
        }
    }

    @Test("enum count, list, single, details")
    func enumeration() async throws {
        try await withSimulator { sim in
            let count = try await sim.mcumgr(["enum", "count"])
            Expect.success(count)
            let n = try #require(Int(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(n >= 8)
            #expect(try await sim.mcumgr(["enum", "count", "--json"]).json()["count"] as? Int == n)

            let list = try await sim.mcumgr(["enum", "list"])
            #expect(list.stdout.contains("image"))
            let groups = try #require(try await sim.mcumgr(["enum", "list", "--json"]).json()["groups"] as? [[String: Any]])
            #expect(groups.count == n)
            #expect(groups.contains { $0["group"] as? Int == 1 && $0["name"] as? String == "image" })

            let single = try await sim.mcumgr(["enum", "single", "0"])
            Expect.success(single)
            let last = try await sim.mcumgr(["enum", "single", "\(n - 1)", "--json"]).json()
            #expect(last["end"] as? Bool == true)
            Expect.failure(try await sim.mcumgr(["enum", "single", "\(n + 5)"]), status: 1, mentioning: "ENUM_MGMT_ERR_INDEX_TOO_LARGE")

            let details = try await sim.mcumgr(["enum", "details"])
            Expect.success(details)
            #expect(details.stdout.hasPrefix("group"))
            let detailsJSON = try #require(try await sim.mcumgr(["enum", "details", "--json", "1"]).json()["groups"] as? [[String: Any]])
            #expect(detailsJSON.count == 1)
            #expect(detailsJSON.first?["group"] as? Int == 1)
        }
    }
}
