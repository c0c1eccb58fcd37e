import Foundation
import McuBoot
import SMP
import SMPTestSupport

/// An MCUboot image made by the venv's `imgtool create` (align 4, 0x200 header), the one image
/// every tool uploads in a run.
struct TestImage: Sendable {
    let path: String
    let bytes: [UInt8]

    /// Makes, in `directory`, an image with `payloadSize` pseudo-random payload bytes.
    static func make(payloadSize: Int, slotSize: Int, in directory: URL) async throws -> TestImage {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let input = directory.appendingPathComponent("app-\(payloadSize).bin")
        let output = directory.appendingPathComponent("app-\(payloadSize).signed.bin")
        var random = SeededRandom(seed: UInt64(payloadSize))
        try Data(random.bytes(payloadSize)).write(to: input)
        let imgtool = BuiltProducts.venvTool("imgtool")
        guard FileManager.default.isExecutableFile(atPath: imgtool) else {
            throw BenchError("\(imgtool) is missing: run scripts/bootstrap.sh (make bench does) to create the venv")
        }
        let run = try await Subprocess.run(
            imgtool,
            ["create", "--align", "4", "--version", "2.0.0+1", "--header-size", "0x200", "--pad-header",
             "--slot-size", "0x" + String(slotSize, radix: 16), input.path, output.path])
        guard run.status == 0 else { throw BenchError("imgtool create failed:\n\(run)") }
        let bytes = [UInt8](try Data(contentsOf: output))
        _ = try McuBootImage(bytes: bytes)
        return TestImage(path: output.path, bytes: bytes)
    }
}
