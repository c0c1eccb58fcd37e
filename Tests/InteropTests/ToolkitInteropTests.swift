import SMPTestSupport
import Foundation
import Testing

import Glibc

/// mcumgr-toolkit (Python bindings over an independent Rust client) against `mcumgr-sim` over UDP.
@Suite("mcumgr-toolkit against mcumgr-sim")
struct ToolkitInteropTests {
    @Test("echo (sent as a read), MCUmgr parameters, image state; SIGINT stops the simulator with status 0")
    func basics() async throws {
        let sim = try await SimulatorProcess.launch(host: "127.0.0.10", arguments: ["--buf-size", "1024", "--buf-count", "3"])
        let run = try await sim.python(PeerScripts.toolkitBasics)
        #expect(run.status == 0, "\(run.stderr)")
        let out = try run.json()
        #expect(out["echo"] as? String == "hello from the toolkit")
        #expect(out["params"] as? [Int] == [1024, 3])
        let images = out["images"] as? [[String: Any]] ?? []
        #expect(images.count == 2)
        #expect(images.allSatisfy { $0["slot"] as? Int == 0 && $0["active"] as? Bool == true && $0["confirmed"] as? Bool == true })
        #expect(sim.log.contains("read group=0 cmd=0"), "the toolkit sends echo as a read")
        kill(sim.child.processIdentifier, SIGINT)
        #expect(await sim.child.exitStatus() == 0)
    }

    @Test("upload an imgtool image, test it, reset, see the swap, confirm")
    func upgrade() async throws {
        let image = try await TestImage.make(version: "2.0.1", seed: 2)
        let sim = try await SimulatorProcess.launch(host: "127.0.0.11")
        let run = try await sim.python(PeerScripts.toolkitUpgrade, image.path)
        #expect(run.status == 0, "\(run.stderr)")
        let out = try run.json()
        #expect(out["hash"] as? String == image.hashHex)
        func slot(_ key: String, _ slot: Int) -> [String: Any]? {
            (out[key] as? [[String: Any]])?.first { $0["image"] as? Int == 0 && $0["slot"] as? Int == slot }
        }
        #expect(slot("uploaded", 1)?["hash"] as? String == image.hashHex)
        #expect(slot("uploaded", 1)?["version"] as? String == "2.0.1")
        #expect(slot("tested", 1)?["pending"] as? Bool == true)
        #expect(slot("after_reset", 0)?["hash"] as? String == image.hashHex)
        #expect(slot("after_reset", 0)?["confirmed"] as? Bool == false)
        #expect(slot("after_reset", 1)?["confirmed"] as? Bool == true)
        #expect(slot("confirmed", 0)?["confirmed"] as? Bool == true)
        #expect(slot("confirmed", 0)?["active"] as? Bool == true)
        #expect(await sim.stop() == 0)
    }

    @Test("OS, slot info, statistics, settings, files, shell, enumeration and erase storage")
    func groups() async throws {
        let sim = try await SimulatorProcess.launch(host: "127.0.0.12")
        let run = try await sim.python(PeerScripts.toolkitGroups)
        #expect(run.status == 0, "\(run.stderr)")
        let out = try run.json()
        #expect((out["tasks"] as? [String])?.contains("main") == true)
        #expect((out["datetime"] as? String)?.hasPrefix("2025-06-07T08:09:1") == true)
        #expect(out["info"] as? String == "Zephyr 3.6.0")
        #expect((out["bootloader"] as? [String: Any])?["mode"] as? Int == 3)
        // Two images, each with two slots of the simulator's default 512 KiB.
        let slotInfo = out["slot_info"] as? [[Any]] ?? []
        #expect(slotInfo.map { $0.first as? Int } == [0, 1])
        #expect(slotInfo.allSatisfy { ($0.last as? [[Any]])?.map { $0[1] as? Int } == [0x80000, 0x80000] })
        #expect(out["stat_list"] as? [String] == ["smp_svr_stats", "smp", "flash"])
        #expect(((out["stat_smp"] as? [String: Int])?["tx_packets"] ?? 0) > 3)
        #expect(out["setting"] as? String == "0b")
        #expect((out["setting_ext"] as? [Any])?.last as? Int == 64)
        #expect(out["setting_deleted"] as? Bool == true)
        #expect(out["download_equal"] as? Bool == true)
        #expect(out["file_len"] as? Int == 5120)
        // Checksums against Python's own hashlib and zlib.
        for (got, expected) in [("sha256", "expected_sha256"), ("crc32", "expected_crc32")] {
            #expect(out[got] as? String != nil && out[got] as? String == out[expected] as? String, "\(got)")
        }
        #expect(out["hash_types"] as? [String] == ["crc32", "sha256"])
        #expect((out["shell"] as? String)?.contains("toolkit shell") == true)
        #expect((out["shell_unknown"] as? String)?.contains("command not found") == true)
        #expect(out["enum_count"] as? Int == 11)  // with Mynewt's crash (5) and run (7) groups
        let groupIDs = out["enum_ids"] as? [Int]
        #expect(groupIDs?.count == 11 && groupIDs == out["enum_iter"] as? [Int], "\(String(describing: groupIDs))")
        #expect((out["enum_details"] as? [[Any]])?.map { $0[1] as? String } == ["img mgmt", "shell mgmt"])
        #expect(out["file_after_erase"] as? String == "gone")
        #expect(await sim.stop() == 0)
    }

    @Test("with 10 % of packets dropped a retrying upload still completes and the slot holds the image")
    func lossyUpload() async throws {
        let image = try await TestImage.make(version: "3.0.0", seed: 3)
        let sim = try await SimulatorProcess.launch(host: "127.0.0.13", arguments: ["--drop", "10", "--seed", "7"])
        let run = try await sim.python(PeerScripts.toolkitLossyUpload, image.path)
        #expect(run.status == 0, "\(run.stderr)")
        let out = try run.json()
        let slots = out["slots"] as? [[String: Any]] ?? []
        let secondary = slots.first { $0["image"] as? Int == 0 && $0["slot"] as? Int == 1 }
        #expect(secondary?["hash"] as? String == image.hashHex)
        #expect(out["hash"] as? String == image.hashHex)
        #expect(sim.log.contains("dropped (fault: drop)"))
        #expect(await sim.stop() == 0)
    }
}
