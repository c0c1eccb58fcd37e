import SMPTestSupport
import Foundation
import McuBoot
import Testing

/// `mcumgr image info`, `--key` on `image upload` and `upgrade`, and the fit checks of `upgrade`:
/// every refusal comes before the first upload chunk (the simulator logs each request it handles).
@Suite("mcumgr image info, signature keys and fit checks")
struct ImageCheckTests {
    static let fixtures = CLI.packageRoot.appendingPathComponent("Tests/McuBootTests/Fixtures")

    static func fixture(_ relative: String) -> String { fixtures.appendingPathComponent(relative).path }

    /// The committed imgtool fixtures' names, from the directory.
    static func fixtureImages() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent("images").path)
            .filter { $0.hasSuffix(".bin") }.sorted()
    }

    /// Upload requests (group 1, command 1) in the simulator's log.
    static func uploads(_ sim: SimulatorProcess) -> [String] {
        sim.requestLog.filter { $0.contains(" group=1 cmd=1 ") }
    }

    @Test("image info --json on every committed fixture: version, hash and key hash as imgtool recorded them")
    func infoAllFixtures() async throws {
        let names = try Self.fixtureImages()
        #expect(names.count >= 14)
        let result = try await CLI.mcumgr(["image", "info", "--json"] + names.map { Self.fixture("images/\($0)") })
        Expect.success(result)
        let answer = try result.json()
        #expect(answer["ok"] as? Bool == true)
        let images = try #require(answer["images"] as? [[String: Any]])
        #expect(images.count == names.count)
        let expectations = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixtures.appendingPathComponent("expectations.json"))) as? [String: Any]
        for entry in try #require(expectations?["images"] as? [[String: Any]]) {
            let name = try #require(entry["name"] as? String)
            let image = try #require(images.first { ($0["file"] as? String)?.hasSuffix("/\(name).bin") == true }, "\(name)")
            #expect((image["hash"] as? [String: Any])?["value"] as? String == entry["hash"] as? String, "\(name)")
            #expect((image["hash"] as? [String: Any])?["verifies"] as? Bool == true, "\(name)")
            let version = try #require((image["header"] as? [String: Any])?["version"] as? String)
            let recorded = try #require(entry["version"] as? String)
            #expect(version == recorded || version + "+0" == recorded, "\(name)")
            let tlvs = ((entry["dumpinfo"] as? [String: Any])?["tlv_area"] as? [String: Any])?["tlvs"] as? [[String: Any]] ?? []
            let keyHash = tlvs.first { $0["type_name"] as? String == "KEYHASH" }?["data"] as? String
            if let keyHash { #expect((image["signature"] as? [String: Any])?["key_hash"] as? String == keyHash, "\(name)") }
        }
        let human = try await CLI.mcumgr(["image", "info", Self.fixture("images/signed-rsa2048.bin"), Self.fixture("images/padded-confirm.bin")])
        Expect.success(human)
        #expect(human.stdout.contains("signature:          RSA-2048-PSS"))
        #expect(human.stdout.contains("image_ok set"))
    }

    @Test("image info: a bad file is named with its problem and exit 4; the good files are still shown")
    func infoBadFiles() async throws {
        let directory = CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("notes.txt").path
        try Data("these are notes, not firmware; a text file of more than 32 bytes".utf8).write(to: URL(fileURLWithPath: text))
        var tampered = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixture("images/unsigned.bin"))))
        tampered[0x40] ^= 0x01
        let tamperedPath = directory.appendingPathComponent("tampered.bin").path
        try Data(tampered).write(to: URL(fileURLWithPath: tamperedPath))

        let bad = try await CLI.mcumgr(["image", "info", text])
        Expect.failure(bad, status: 4, mentioning: "notes.txt: not a valid MCUboot image: Not an MCUboot image: the header magic")
        let missing = try await CLI.mcumgr(["image", "info", directory.appendingPathComponent("missing.bin").path])
        Expect.failure(missing, status: 4, mentioning: "missing.bin: no such file")
        #expect(!missing.stderr.contains("not a valid MCUboot image"), "a missing file is not a bad image: \(missing)")
        let hash = try await CLI.mcumgr(["image", "info", tamperedPath])
        Expect.failure(hash, status: 4, mentioning: "hash mismatch")
        #expect(hash.stdout.contains("DOES NOT VERIFY"))

        let mixed = try await CLI.mcumgr(["image", "info", "--json", Self.fixture("images/unsigned.bin"), text])
        #expect(mixed.status == 4)
        let answer = try mixed.json()
        #expect(answer["ok"] as? Bool == false)
        #expect((answer["images"] as? [[String: Any]])?.count == 1)
        #expect((answer["errors"] as? [[String: Any]])?.first?["file"] as? String == text)
    }

    @Test("image upload --key: a wrong key is exit 4 naming the image's key hash, and the device saw no upload")
    func uploadWrongKey() async throws {
        let image = Self.fixture("images/signed-ecdsa-p256.bin")
        let keyHash = try #require(try McuBootImage(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: image)))).signingKeyHash)
        let hex = keyHash.map { String(format: "%02x", $0) }.joined()
        try await withSimulator(logsRequests: true) { sim in
            let wrong = try await sim.mcumgr(["image", "upload", image, "--key", Self.fixture("keys/ed25519.pub.pem"), "--key", Self.fixture("keys/rsa-2048.pub.pem")])
            Expect.failure(wrong, status: 4, mentioning: "nothing was sent")
            #expect(wrong.stderr.contains("signed with ECDSA"))
            // The right key among others: the upload goes ahead.
            let right = try await sim.mcumgr(["image", "upload", image, "--key", Self.fixture("keys/rsa-3072.pub.pem"), "--key", Self.fixture("keys/ecdsa-p256.pem")])
            Expect.success(right)
            #expect(!Self.uploads(sim).isEmpty, "the right key uploads: \(sim.requestLog)")
        }
        try await withSimulator(logsRequests: true) { sim in
            let wrong = try await sim.mcumgr(["image", "upload", image, "--key", try await Self.otherP256Key()])
            Expect.failure(wrong, status: 4, mentioning: hex)
            #expect(sim.requestLog.isEmpty, "nothing reached the device: \(sim.requestLog)")
            let rsa = try await sim.mcumgr(["image", "upload", Self.fixture("images/signed-rsa3072-full.bin"), "--key", Self.fixture("keys/rsa-3072.pub.pem")])
            Expect.success(rsa)
            #expect(!Self.uploads(sim).isEmpty)
        }
    }

    @Test("upgrade --key: a wrong key or a bad key file is exit 4 before anything is sent")
    func upgradeWrongKey() async throws {
        let image = Self.fixture("images/signed-ed25519.bin")
        try await withSimulator(logsRequests: true) { sim in
            Expect.failure(try await sim.mcumgr(["upgrade", image, "--key", try await Self.otherP256Key()]), status: 4, mentioning: "signed with Ed25519")
            Expect.failure(try await sim.mcumgr(["upgrade", image, "--key", Self.fixture("payloads/a.bin")]), status: 4, mentioning: "a.bin")
            Expect.failure(try await sim.mcumgr(["upgrade", Self.fixture("images/signed-rsa2048.bin"), "--key", Self.fixture("keys/ed25519.pem")]), status: 4, mentioning: "RSA-2048")
            #expect(sim.requestLog.isEmpty, "\(sim.requestLog)")
        }
    }

    @Test("upgrade refuses an image too large for the device's slot before the first chunk (exit 1)")
    func tooLarge() async throws {
        let file = try await TestImages.make(version: "1.1.0", payloadSize: 80 * 1024, seed: 31)
        try await withSimulator(["--slot-size", "65536", "--image-size", "16384"], logsRequests: true) { sim in
            let result = try await sim.mcumgr(["upgrade", file])
            Expect.failure(result, status: 1, mentioning: "larger than the 65536 bytes")
            #expect(sim.requestLog.contains { $0.contains(" group=1 cmd=6 ") }, "slot info was asked: \(sim.requestLog)")
            #expect(Self.uploads(sim).isEmpty, "\(sim.requestLog)")
        }
    }

    @Test("upgrade refuses an image number the device lacks, and an image built for another image number (exit 1)")
    func wrongImageNumber() async throws {
        let file = try await TestImages.make(version: "1.1.0", payloadSize: 8 * 1024, seed: 32)
        let dependent = try await Self.makeImage(version: "1.2.0", dependencies: "(1,1.0.0)")
        try await withSimulator(logsRequests: true) { sim in
            Expect.failure(try await sim.mcumgr(["upgrade", file, "--image-index", "5"]), status: 1, mentioning: "the device has no image 5 (it has 0, 1)")
            Expect.failure(try await sim.mcumgr(["upgrade", "\(dependent)@1"]), status: 1, mentioning: "built for another image number")
            #expect(sim.requestLog.contains { $0.contains(" group=1 cmd=0 ") })
            #expect(Self.uploads(sim).isEmpty, "\(sim.requestLog)")
        }
        try await withSimulator(["--images", "1"], logsRequests: true) { sim in
            Expect.failure(try await sim.mcumgr(["upgrade", dependent]), status: 1, mentioning: "depends on image 1, which the device does not have")
            #expect(Self.uploads(sim).isEmpty, "\(sim.requestLog)")
        }
    }

    @Test("upgrade --no-downgrade refuses an older or equal version before the first chunk (exit 1)")
    func downgrade() async throws {
        let older = try await TestImages.make(version: "0.9.0", payloadSize: 8 * 1024, seed: 33)
        let same = try await TestImages.make(version: "1.0.0", payloadSize: 8 * 1024, seed: 34)
        try await withSimulator(logsRequests: true) { sim in
            Expect.failure(try await sim.mcumgr(["upgrade", older, "--no-downgrade"]), status: 1, mentioning: "0.9.0 is not newer than the running 1.0.0")
            Expect.failure(try await sim.mcumgr(["upgrade", same, "--no-downgrade"]), status: 1, mentioning: "downgrade refused")
            #expect(Self.uploads(sim).isEmpty, "\(sim.requestLog)")
        }
    }

    /// An imgtool-made image with `--dependencies` (the builder when imgtool is missing).
    static func makeImage(version: String, dependencies: String) async throws -> String {
        let directory = CLI.temporaryDirectory()
        let output = directory.appendingPathComponent("dependent-\(version).bin").path
        let payload = TestImages.payload(size: 4096, seed: 41)
        if let imgtool = TestImages.imgtool {
            let input = directory.appendingPathComponent("payload.bin").path
            try Data(payload).write(to: URL(fileURLWithPath: input))
            let result = try await CLI.run(imgtool, [
                "create", "--version", version, "--header-size", "0x200", "--pad-header", "--slot-size", "0x80000",
                "--dependencies", dependencies, input, output,
            ])
            #expect(result.status == 0, "imgtool failed: \(result)")
        } else {
            var builder = McuBootImageBuilder(payload: payload, version: McuBootVersion(string: version)!)
            builder.headerSize = 0x200
            builder.dependencies = [McuBootImageDependency(imageID: 1, minimumVersion: McuBootVersion(major: 1))]
            try Data(try builder.build()).write(to: URL(fileURLWithPath: output))
        }
        return output
    }

    /// A fresh ECDSA P-256 private key file made by openssl (not the fixtures' key).
    static func otherP256Key() async throws -> String {
        let path = CLI.temporaryDirectory().appendingPathComponent("other.pem").path
        let result = try await CLI.run("/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path])
        #expect(result.status == 0, "openssl failed: \(result)")
        return path
    }
}
