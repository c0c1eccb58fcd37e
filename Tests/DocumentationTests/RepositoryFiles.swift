import Foundation

/// Files of this repository, read by the documentation tests.
enum RepositoryFiles {
    /// The package's root directory.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The text of the file at `path` (relative to the root).
    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The paths of the Swift files under `directory` (relative to the root), sorted.
    static func swiftFiles(under directory: String) -> [String] {
        let base = root.appendingPathComponent(directory)
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { "\(directory)/\($0)" }
    }
}
