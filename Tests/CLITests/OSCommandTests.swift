import SMPTestSupport
import Foundation
import Testing

/// The OS group's commands, and erase-storage.
@Suite("mcumgr OS commands")
struct OSCommandTests {
    @Test("reset, human and JSON; the device answers again after")
    func reset() async throws {
        try await withSimulator { sim in
            let human = try await sim.mcumgr(["reset"])
            Expect.success(human)
            #expect(human.stdout.hasPrefix("Done"))
            try await Task.sleep(for: .milliseconds(800))
            let json = try await sim.mcumgr(["reset", "--force", "--json"])
            Expect.success(json)
            let answer = try json.json()
            #expect(answer["ok"] as? Bool == true)
            #expect(answer["force"] as? Bool == true)
        }
    }

    @Test("datetime get, set, and Go's datetime VALUE")
    func datetime() async throws {
        try await withSimulator { sim in
            Expect.failure(try await sim.mcumgr(["datetime"]), status: 1, mentioning: "OS_MGMT_ERR_RTC_NOT_SET")
            let set = try await sim.mcumgr(["datetime", "set", "2024-05-06T07:08:09"])
            Expect.success(set)
            #expect(set.stdout.contains("2024-05-06T07:08:09"))
            let get = try await sim.mcumgr(["datetime", "get"])
            Expect.success(get)
            #expect(get.stdout.hasPrefix("2024-05-06T07:08:"))
            let go = try await sim.mcumgr(["datetime", "2030-01-02T03:04:05", "--json"])
            Expect.success(go)
            #expect(try go.json()["datetime"] as? String == "2030-01-02T03:04:05")
            let json = try await sim.mcumgr(["--json", "datetime"])
            Expect.success(json)
            #expect((try json.json()["datetime"] as? String)?.hasPrefix("2030-01-02T03:04:") == true)
            Expect.success(try await sim.mcumgr(["datetime", "set"]))
            Expect.failure(try await sim.mcumgr(["datetime", "set", "yesterday"]), status: 2)
        }
    }

    @Test("taskstat and mpstat")
    func statistics() async throws {
        try await withSimulator { sim in
            let tasks = try await sim.mcumgr(["taskstat"])
            Expect.success(tasks)
            #expect(tasks.stdout.hasPrefix("task"))
            #expect(tasks.stdout.contains("idle"))
            #expect(tasks.stdout.contains("mcumgr smp"))
            let tasksJSON = try await sim.mcumgr(["taskstat", "--json"])
            let all = try #require(try tasksJSON.json()["tasks"] as? [String: [String: Any]])
            #expect(all["idle"]?["prio"] as? Int == 15)
            #expect(all["main"]?["stksiz"] as? Int == 512)

            let pools = try await sim.mcumgr(["mpstat"])
            Expect.success(pools)
            #expect(pools.stdout.contains("heap"))
            let poolsJSON = try await sim.mcumgr(["mpstat", "--json"])
            let mpools = try #require(try poolsJSON.json()["mpools"] as? [String: [String: Any]])
            #expect(mpools["netbuf"]?["blksiz"] as? Int == 2048)
            #expect(mpools["heap"]?["nblks"] as? Int == 2048)
        }
    }

    @Test("params, info and bootloader")
    func deviceFacts() async throws {
        try await withSimulator { sim in
            let params = try await sim.mcumgr(["params"])
            Expect.success(params)
            #expect(params.stdout == "buf_size: 2048\nbuf_count: 4\n")
            let paramsJSON = try await sim.mcumgr(["params", "--json"])
            #expect(try paramsJSON.json()["buf_size"] as? Int == 2048)
            #expect(try paramsJSON.json()["buf_count"] as? Int == 4)

            let info = try await sim.mcumgr(["info"])
            Expect.success(info)
            #expect(info.stdout == "Zephyr\n")
            let all = try await sim.mcumgr(["info", "a", "--json"])
            let output = try #require(try all.json()["output"] as? String)
            #expect(output.contains("mcumgr-sim"))
            #expect(output.contains("native_sim"))
            Expect.failure(try await sim.mcumgr(["info", "Q"]), status: 1, mentioning: "OS_MGMT_ERR_INVALID_FORMAT")

            let boot = try await sim.mcumgr(["bootloader"])
            Expect.success(boot)
            #expect(boot.stdout.contains("bootloader: MCUboot"))
            #expect(boot.stdout.contains("mode: 3 (swap using move)"))
            let bootJSON = try await sim.mcumgr(["bootloader", "--json"]).json()
            #expect(bootJSON["bootloader"] as? String == "MCUboot")
            #expect(bootJSON["mode"] as? Int == 3)
            #expect(bootJSON["no_downgrade"] as? Bool == false)
        }
    }

    @Test("erase-storage")
    func eraseStorage() async throws {
        try await withSimulator { sim in
            Expect.success(try await sim.mcumgr(["config", "write", "app/x", "1"]))
            Expect.success(try await sim.mcumgr(["config", "save"]))
            let human = try await sim.mcumgr(["erase-storage"])
            Expect.success(human)
            #expect(human.stdout.hasPrefix("Done"))
            let json = try await sim.mcumgr(["erase-storage", "--json"])
            #expect(try json.json()["action"] as? String == "erase-storage")
        }
    }
}
