import SMPTestSupport
import Testing

@Suite("mcumgr start-up")
struct StartupTests {
    /// The shared libraries the dynamic loader opened for a run (its `LD_DEBUG=files` lines).
    static func loadedLibraries(_ arguments: [String]) async throws -> [String] {
        let result = try await CLI.mcumgr(arguments, environment: ["LD_DEBUG": "files"])
        #expect(result.status == 0, "\(result)")
        return result.stderr.split(separator: "\n").compactMap { line in
            guard let start = line.range(of: "file="), line.contains("needed by") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != " " })
        }
    }

    @Test("the CLI loads FoundationEssentials, not Foundation and its ICU data (they slow every start)")
    func noFullFoundation() async throws {
        let libraries = try await Self.loadedLibraries(["--help"])
        #expect(libraries.contains("libswiftCore.so"), "\(libraries)")
        #expect(libraries.contains("libFoundationEssentials.so"), "\(libraries)")
        for heavy in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!libraries.contains(heavy), "\(heavy) is loaded: \(libraries)")
        }
    }
}
