import Foundation
import NIOConcurrencyHelpers

/// The BLE VM rig (`scripts/blevm`, see docs/blevm.md) for tests: a qemu guest with a real Linux
/// kernel, BlueZ and btvirt's virtual controllers, booted once per ``run(script:inputs:timeout:)``
/// to run one guest script against the built `mcumgr` and `mcumgr-sim`.
///
/// The guest image is built once (about two minutes, as root, with mmdebstrap) and cached outside
/// the repository; ``unavailableReason`` says, in one line, why the rig cannot run here.
public enum BlueZVM {
    /// The rig's scripts.
    public static let scripts = BuiltProducts.packageRoot.appendingPathComponent("scripts/blevm")

    /// Why the rig cannot run on this machine (no qemu; not root and no cached image; no
    /// mmdebstrap), in one line; nil when it can. Cheap: it does not build the image.
    public static let unavailableReason: String? = {
        guard executableOnPath("qemu-system-x86_64") else {
            return "qemu-system-x86_64 is missing (scripts/bootstrap.sh installs qemu-system-x86)"
        }
        if imageIsCached { return nil }
        guard getuid() == 0 else { return "building the VM image needs root, and no image is cached (run 'make blevm' as root once)" }
        guard executableOnPath("mmdebstrap") else { return "mmdebstrap is missing (scripts/bootstrap.sh installs it)" }
        return nil
    }()

    /// Whether the rig can run here; when it cannot, says why on standard error, once, in one line.
    public static var mayRun: Bool {
        guard let reason = unavailableReason else { return true }
        let first = reported.withLockedValue { reported in
            defer { reported = true }
            return !reported
        }
        if first { FileHandle.standardError.write(Data("BlueZ VM tests skipped: \(reason)\n".utf8)) }
        return false
    }

    private static let reported = NIOLockedValueBox(false)

    /// Boots the guest once and runs `script` (`/bin/sh`) in it with `inputs` on its input share,
    /// the built `mcumgr` and `mcumgr-sim` on its PATH; waits at most `timeout` for the script
    /// (plus the boot). Builds the image first when it is not cached. Throws ``BlueZVMUnavailable``
    /// when the VM could not run (no image, qemu failed): the script's own failures are in the result.
    public static func run(script: URL, inputs: [URL] = [], timeout: Duration = .seconds(900)) async throws -> BlueZVMResult {
        let directory = try Subprocess.temporaryDirectory("blevm")
        let binaries = URL(fileURLWithPath: try BuiltProducts.require("mcumgr")).deletingLastPathComponent()
        _ = try BuiltProducts.require("mcumgr-sim")
        let seconds = timeout.components.seconds
        var arguments = ["--out", directory.path, "--timeout", String(seconds), "--bin", binaries.path]
        for input in inputs { arguments += ["--input", input.path] }
        // The image build (the first time) and the boot come on top of the script's own time.
        let output = try await Subprocess.run(
            scripts.appendingPathComponent("run.sh").path, arguments + [script.path], timeout: timeout + .seconds(1800))
        if output.status == 125 || output.status == 124 {
            let reason = (try? String(contentsOf: directory.appendingPathComponent("rig-error"), encoding: .utf8)) ?? output.stderr
            throw BlueZVMUnavailable(reason: reason.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return BlueZVMResult(directory: directory, status: output.status)
    }

    /// Whether an image for the current image script is in the cache.
    private static var imageIsCached: Bool {
        guard let key = imageKey else { return false }
        return FileManager.default.fileExists(atPath: cacheRoot.appendingPathComponent(key).appendingPathComponent("ready").path)
    }

    /// The cache directory, as scripts/blevm/common.sh chooses it.
    private static var cacheRoot: URL {
        let environment = ProcessInfo.processInfo.environment
        if let cache = environment["BLEVM_CACHE"], !cache.isEmpty { return URL(fileURLWithPath: cache) }
        if getuid() == 0 { return URL(fileURLWithPath: "/var/cache/swift-mcumgr/blevm") }
        let base = environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return base.appendingPathComponent("swift-mcumgr/blevm")
    }

    /// The image's key: the first 16 hex digits of image.sh's SHA-256 (as common.sh makes it).
    private static var imageKey: String? {
        let script = scripts.appendingPathComponent("image.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [script]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data.prefix(16), as: UTF8.self)
    }

    private static func executableOnPath(_ name: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }
}

/// The VM could not run the script (no image, the boot failed or took too long), in one line.
public struct BlueZVMUnavailable: Error, CustomStringConvertible {
    /// Why.
    public let reason: String

    /// A one-line message.
    public var description: String { "the BLE VM could not run: \(reason)" }
}
