import Foundation

/// Where the package, its built executables and its Python venv are, for tests that run them.
///
/// Executables are looked up, in order, in `$MCUMGR_BIN_DIR`, in the directory of the running
/// test binary (SwiftPM puts every product there, whatever the scratch path), beside the test
/// bundles, and in the package's `.build/debug`.
public enum BuiltProducts {
    /// The package's root directory.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The venv's `bin` directory (`.venv/bin`, made by scripts/bootstrap.sh).
    public static var venv: String { packageRoot.appendingPathComponent(".venv/bin").path }

    /// A tool of the venv (`python`, `smpmgr`, `imgtool`, …).
    public static func venvTool(_ name: String) -> String { venv + "/" + name }

    /// Directories that may hold the built products.
    public static let searchDirectories: [URL] = {
        var directories: [URL] = []
        if let dir = ProcessInfo.processInfo.environment["MCUMGR_BIN_DIR"], !dir.isEmpty {
            directories.append(URL(fileURLWithPath: dir))
        }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        if let first = CommandLine.arguments.first, first.contains("/") {
            directories.append(URL(fileURLWithPath: first).standardizedFileURL.deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        directories.append(packageRoot.appendingPathComponent(".build/debug"))
        return directories
    }()

    /// The path of the built executable `name`, or nil when it was not built.
    public static func executable(_ name: String) -> String? {
        for directory in searchDirectories {
            let path = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// The path of `name`, or an error saying how to build it.
    public static func require(_ name: String) throws -> String {
        guard let path = executable(name) else {
            throw ProcessError(
                "the \(name) executable was not found in \(searchDirectories.map(\.path)); build it first with 'swift build --product \(name)' (same --scratch-path as the tests), or set MCUMGR_BIN_DIR")
        }
        return path
    }

    /// Fails with a message naming the fix when the Python peers are not installed.
    public static func requirePeers(_ tools: [String] = ["python", "smpmgr", "imgtool"]) throws {
        for tool in tools.map(venvTool) where !FileManager.default.isExecutableFile(atPath: tool) {
            throw ProcessError("\(tool) is missing: the Python peers are not installed; run `make test` (scripts/bootstrap.sh creates .venv)")
        }
    }
}
