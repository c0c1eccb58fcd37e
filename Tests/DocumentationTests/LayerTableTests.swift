import Foundation
import Testing

/// The layer table of docs/architecture.md against the imports of every target.
@Suite("docs/architecture.md: each target imports only the targets its row allows")
struct LayerTableTests {
    /// The table's rows: target → the targets of this package it may import.
    static func table() throws -> [String: Set<String>] {
        let text = try RepositoryFiles.text("docs/architecture.md")
        var rows: [String: Set<String>] = [:]
        var inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("<!-- layers:") { inTable = true; continue }
            guard inTable else { continue }
            guard line.hasPrefix("|") else {
                if !rows.isEmpty { break }
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, cells[1] != "target", !cells[1].hasPrefix("---") else { continue }
            let target = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let allowed = cells[2].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "` ")) }.filter { !$0.isEmpty && $0 != "—" }
            rows[target] = Set(allowed)
        }
        return rows
    }

    /// Our targets: the folders of Sources/ and Examples/ (names as SwiftPM gives them to modules).
    static func targets() -> [String: String] {
        var targets: [String: String] = [:]
        for folder in ["Sources", "Examples"] {
            let base = RepositoryFiles.root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
            for name in names where !RepositoryFiles.swiftFiles(under: "\(folder)/\(name)").isEmpty {
                targets[name.replacingOccurrences(of: "-", with: "_")] = "\(folder)/\(name)"
            }
        }
        return targets
    }

    /// The modules a Swift file imports.
    static func imports(of path: String) throws -> Set<String> {
        var modules: Set<String> = []
        for line in try RepositoryFiles.text(path).split(separator: "\n") {
            let words = line.split(separator: " ").filter { !$0.hasPrefix("@") && !["public", "package", "internal"].contains($0) }
            guard words.count >= 2, words[0] == "import" else { continue }
            modules.insert(String(words[words.count - 1]))
        }
        return modules
    }

    @Test("every target has a row, and imports none of our targets beyond it")
    func importsMatchTheTable() throws {
        let table = try Self.table()
        let targets = Self.targets()
        #expect(!table.isEmpty, "docs/architecture.md has no layer table")
        for (module, folder) in targets.sorted(by: { $0.key < $1.key }) {
            let row = table[module] ?? table[module.replacingOccurrences(of: "_", with: "-")]
            guard let allowed = row else {
                Issue.record("\(module) (\(folder)) has no row in the layer table of docs/architecture.md")
                continue
            }
            for file in RepositoryFiles.swiftFiles(under: folder) {
                let ours = try Self.imports(of: file).filter { targets[$0] != nil && $0 != module }
                for module in ours.subtracting(allowed).sorted() {
                    Issue.record("\(file) imports \(module), which its target's row in docs/architecture.md does not allow")
                }
            }
        }
        for target in table.keys where targets[target] == nil && targets[target.replacingOccurrences(of: "-", with: "_")] == nil {
            Issue.record("the layer table names \(target), which is not a target")
        }
    }

    @Test("the table draws layers: no target may import a target that may import it back")
    func tableHasNoCycle() throws {
        let table = try Self.table()
        func reaches(_ from: String, _ to: String, seen: inout Set<String>) -> Bool {
            for next in table[from] ?? [] where !seen.contains(next) {
                if next == to { return true }
                seen.insert(next)
                if reaches(next, to, seen: &seen) { return true }
            }
            return false
        }
        for target in table.keys.sorted() {
            var seen: Set<String> = []
            #expect(!reaches(target, target, seen: &seen), "\(target) can reach itself through the table")
        }
    }
}
