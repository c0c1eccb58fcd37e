import SMPTestSupport
import Foundation
import McuBoot

/// An MCUboot image made at test time by the venv's `imgtool create`, from seeded pseudo-random bytes.
struct TestImage: Sendable {
    let path: String
    let bytes: [UInt8]
    /// The SHA-256 TLV, read with our McuBoot parser.
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
        let bytes = [UInt8](try Data(contentsOf: output))
        let image = try McuBootImage(bytes: bytes)
        return TestImage(path: output.path, bytes: bytes, hash: image.hash)
    }

    var hashHex: String { hash.map { String(format: "%02x", $0) }.joined() }
}
