import SMPTestSupport
import Foundation
import Testing

/// `mcumgr image …` and `mcumgr upgrade`.
@Suite("mcumgr image and upgrade")
struct ImageCommandTests {
    /// The slots of `image list --json`.
    static func slots(_ sim: SimulatorProcess) async throws -> [[String: Any]] {
        let result = try await sim.mcumgr(["image", "list", "--json"])
        Expect.success(result)
        return try #require(try result.json()["images"] as? [[String: Any]])
    }

    @Test("image list shows the running image, human and JSON")
    func list() async throws {
        try await withSimulator { sim in
            let human = try await sim.mcumgr(["image", "list"])
            Expect.success(human)
            #expect(human.stdout.contains(" image=0 slot=0\n    version: 1.0.0\n    bootable: true\n    flags: active confirmed\n    hash: "))
            let slots = try await Self.slots(sim)
            let running = try #require(slots.first { $0["image"] as? Int == 0 && $0["slot"] as? Int == 0 })
            #expect(running["version"] as? String == "1.0.0")
            #expect(running["active"] as? Bool == true)
            #expect(running["confirmed"] as? Bool == true)
            let hash = try #require(running["hash"] as? String)
            #expect(hash.count == 64 && hash == hash.lowercased())
            #expect(human.stdout.contains("hash: \(hash)"))
        }
    }

    @Test("image upload of a 300 KiB imgtool image, then list, test, confirm, erase")
    func uploadThenManage() async throws {
        let file = try await TestImages.make(version: "1.2.0", payloadSize: 320 * 1024, seed: 7)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(size >= 300 * 1024)
        let hash = try TestImages.hash(of: file)
        try await withSimulator { sim in
            let upload = try await sim.mcumgr(["image", "upload", file])
            Expect.success(upload)
            #expect(upload.stdout.contains("upload: 100%"), "one progress line per 10 % when not on a terminal: \(upload)")
            #expect(upload.stdout.contains("upload: 50%"))
            #expect(upload.stdout.contains("Done: uploaded"))
            #expect(upload.stdout.contains("hash: \(hash)"))

            let list = try await sim.mcumgr(["image", "list"])
            Expect.success(list)
            #expect(list.stdout.contains(" image=0 slot=1\n    version: 1.2.0\n    bootable: true\n    flags: \n    hash: \(hash)"), "\(list)")
            let slots = try await Self.slots(sim)
            let uploaded = try #require(slots.first { $0["image"] as? Int == 0 && $0["slot"] as? Int == 1 })
            #expect(uploaded["hash"] as? String == hash)
            #expect(uploaded["pending"] as? Bool == false)

            let confirm = try await sim.mcumgr(["image", "confirm", "--json"])
            Expect.success(confirm)
            #expect((try confirm.json()["images"] as? [[String: Any]])?.isEmpty == false)
            let confirmHuman = try await sim.mcumgr(["image", "confirm"])
            Expect.success(confirmHuman)
            #expect(confirmHuman.stdout.hasPrefix("Images:"))

            let test = try await sim.mcumgr(["image", "test", hash.uppercased(), "--json"])
            Expect.success(test)
            let tested = try #require((try test.json()["images"] as? [[String: Any]])?.first { $0["hash"] as? String == hash })
            #expect(tested["pending"] as? Bool == true)
            let testHuman = try await sim.mcumgr(["image", "test", hash])
            Expect.success(testHuman)
            #expect(testHuman.stdout.contains("flags: pending"))

            // A pending image cannot be erased; the device says so.
            let busy = try await sim.mcumgr(["image", "erase"])
            Expect.failure(busy, status: 1)
        }
        try await withSimulator { sim in
            Expect.success(try await sim.mcumgr(["image", "upload", file, "--json", "--pipeline-depth", "2", "--alignment", "4"]))
            let erase = try await sim.mcumgr(["image", "erase", "--json"])
            Expect.success(erase)
            #expect(try erase.json()["ok"] as? Bool == true)
            let slots = try await Self.slots(sim)
            #expect(!slots.contains { $0["slot"] as? Int == 1 && $0["image"] as? Int == 0 })
            let human = try await sim.mcumgr(["image", "erase", "--slot", "1"])
            Expect.success(human)
            #expect(human.stdout == "Done: erased slot 1\n")
        }
    }

    @Test("image upload --json prints the upload's facts")
    func uploadJSON() async throws {
        let file = try await TestImages.make(version: "1.3.0", payloadSize: 40 * 1024, seed: 3)
        let hash = try TestImages.hash(of: file)
        try await withSimulator { sim in
            let result = try await sim.mcumgr(["image", "upload", file, "--json", "--image", "1", "--mtu", "512"])
            Expect.success(result)
            let answer = try result.json()
            #expect(answer["hash"] as? String == hash)
            #expect(answer["version"] as? String == "1.3.0")
            #expect(answer["image"] as? Int == 1)
            #expect(answer["bytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int))
            #expect(result.stderr.contains("upload: 100%"), "progress goes to standard error with --json")
            let slots = try await Self.slots(sim)
            #expect(slots.contains { $0["image"] as? Int == 1 && $0["slot"] as? Int == 1 && $0["hash"] as? String == hash })
        }
    }

    @Test("image upload --upgrade of an older image is refused by the device")
    func uploadRefusedDowngrade() async throws {
        let file = try await TestImages.make(version: "0.9.0", payloadSize: 8 * 1024, seed: 4)
        try await withSimulator { sim in
            Expect.failure(try await sim.mcumgr(["image", "upload", file, "--upgrade"]), status: 1, mentioning: "IMG_MGMT_ERR_CURRENT_VERSION_IS_NEWER")
        }
    }

    @Test("image slot-info")
    func slotInfo() async throws {
        try await withSimulator { sim in
            let human = try await sim.mcumgr(["image", "slot-info"])
            Expect.success(human)
            #expect(human.stdout.contains("524288"))
            let json = try await sim.mcumgr(["image", "slot-info", "--json"])
            let images = try #require(try json.json()["images"] as? [[String: Any]])
            #expect(images.count == 2)
            let slots = try #require(images.first?["slots"] as? [[String: Any]])
            #expect(slots.map { $0["size"] as? Int } == [524_288, 524_288])
        }
    }

    @Test("upgrade ends with the new image active and confirmed")
    func upgrade() async throws {
        let file = try await TestImages.make(version: "1.1.0", payloadSize: 100 * 1024, seed: 11)
        let hash = try TestImages.hash(of: file)
        try await withSimulator { sim in
            let result = try await sim.mcumgr(["upgrade", file])
            Expect.success(result)
            // The steps as a person reads them, not the state names (issue 32).
            #expect(result.stdout.contains("upgrade: reading the device's SMP buffers\n"), "\(result)")
            #expect(result.stdout.contains("upgrade: uploading\n"))
            #expect(result.stdout.contains("upgrade: confirming the new image\n"))
            #expect(!result.stdout.contains("requestMcuMgrParameters") && !result.stdout.contains("bootloaderInfo"), "\(result)")
            #expect(result.stdout.contains("image 0: 100%"))
            #expect(result.stdout.contains(" image=0 slot=0\n    version: 1.1.0\n    bootable: true\n    flags: active confirmed\n    hash: \(hash)"), "\(result)")

            let slots = try await Self.slots(sim)
            let running = try #require(slots.first { $0["image"] as? Int == 0 && $0["slot"] as? Int == 0 })
            #expect(running["hash"] as? String == hash)
            #expect(running["active"] as? Bool == true)
            #expect(running["confirmed"] as? Bool == true)
            #expect(running["version"] as? String == "1.1.0")
        }
    }

    @Test("upgrade --json of two images with FILE@N, and the bundled demo image")
    func upgradeJSON() async throws {
        let second = try await TestImages.make(version: "1.4.0", payloadSize: 20 * 1024, seed: 12)
        let demo = CLI.packageRoot.appendingPathComponent("Examples/images/demo-app-1.1.0.bin").path
        let demoHash = try TestImages.hash(of: demo)
        try await withSimulator { sim in
            let result = try await sim.mcumgr(["upgrade", demo, "\(second)@1", "--json", "--pipeline-depth", "2"])
            Expect.success(result)
            let answer = try result.json()
            #expect(result.stderr.contains("upgrade: confirming the new image"), "with --json, the states go to standard error")
            #expect(answer["ok"] as? Bool == true)
            #expect((answer["uploaded_images"] as? [Int])?.sorted() == [0, 1])
            #expect(answer["resets"] as? Int == 1)
            let images = try #require(answer["images"] as? [[String: Any]])
            #expect(images.contains { $0["image"] as? Int == 0 && $0["slot"] as? Int == 0 && $0["hash"] as? String == demoHash && $0["confirmed"] as? Bool == true })
            #expect(images.contains { $0["image"] as? Int == 1 && $0["slot"] as? Int == 0 && $0["version"] as? String == "1.4.0" && $0["active"] as? Bool == true })
        }
    }

    @Test("upgrade --mode upload-only and --no-downgrade")
    func upgradeModes() async throws {
        let file = try await TestImages.make(version: "1.5.0", payloadSize: 10 * 1024, seed: 13)
        let old = try await TestImages.make(version: "0.5.0", payloadSize: 10 * 1024, seed: 14)
        try await withSimulator { sim in
            let result = try await sim.mcumgr(["upgrade", file, "--mode", "upload-only", "--json"])
            Expect.success(result)
            #expect(try result.json()["resets"] as? Int == 0)
            let slots = try await Self.slots(sim)
            #expect(slots.contains { $0["slot"] as? Int == 1 && $0["version"] as? String == "1.5.0" && $0["pending"] as? Bool == false })
            Expect.failure(try await sim.mcumgr(["upgrade", old, "--no-downgrade", "--image-index", "1"]), status: 1, mentioning: "downgrade")
        }
    }
}
