import Foundation
import Hex
import McuBoot
import SMP
import SMPTestSupport

/// An MCUboot image made at test time by the venv's `imgtool create`, from seeded pseudo-random bytes.
struct TestImage: Sendable {
    let path: String
    let bytes: [UInt8]
    /// The image's SHA-256, as `imgtool verify` reports it (our McuBoot parser must agree).
    let hash: [UInt8]

    /// Makes an image of `size` payload bytes with `version` (imgtool notation, e.g. `1.2.3+7`).
    static func make(version: String, size: Int = 220 * 1024, seed: UInt64 = 1) async throws -> TestImage {
        try BuiltProducts.requirePeers()
        let directory = try Interop.temporaryDirectory("image")
        let input = directory.appendingPathComponent("app.bin")
        let output = directory.appendingPathComponent("app.signed.bin")
        var random = SeededRandom(seed: seed)
        try Data(random.bytes(size)).write(to: input)
        let result = try await Subprocess.run(
            Interop.imgtool,
            ["create", "--align", "4", "--version", version, "--header-size", "0x200", "--pad-header", "--slot-size", "0x80000",
             input.path, output.path])
        guard result.status == 0 else { throw InteropError("imgtool create failed: \(result.stderr)") }
        let verify = try await Subprocess.run(Interop.imgtool, ["verify", output.path])
        let digest = verify.stdout.split(separator: "\n").first { $0.hasPrefix("Image digest: ") }?.dropFirst("Image digest: ".count)
        guard verify.status == 0, let digest, let hash = [UInt8](hex: String(digest)) else {
            throw InteropError("imgtool verify gave no digest:\n\(verify)")
        }
        let bytes = [UInt8](try Data(contentsOf: output))
        let parsed = try McuBootImage(bytes: bytes).hash
        guard parsed == hash else { throw InteropError("our McuBoot parser reads hash \(parsed), imgtool verify \(digest)") }
        return TestImage(path: output.path, bytes: bytes, hash: hash)
    }

    /// The hash as lowercase hex, as the peers print it.
    var hashHex: String { hash.hexString }
}
