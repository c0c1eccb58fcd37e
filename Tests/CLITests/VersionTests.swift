import Foundation
import SMP
import SMPTestSupport
import Testing

import Glibc

/// The version users pin, from one source (`SwiftMcuMgr.version`).
@Suite("mcumgr --version and mcumgr-sim --version (issue 32)")
struct VersionTests {
    @Test("mcumgr --version and mcumgr-sim --version print the library's version (one source: SwiftMcuMgr.version)")
    func version() async throws {
        let mcumgr = try await CLI.mcumgr(["--version"])
        #expect(mcumgr.status == 0, "\(mcumgr)")
        #expect(mcumgr.stdout == SwiftMcuMgr.version + "\n", "\(mcumgr)")
        let sim = try await CLI.run(try BuiltProducts.require("mcumgr-sim"), ["--version"])
        #expect(sim.status == 0, "\(sim)")
        #expect(sim.stdout == SwiftMcuMgr.version + "\n", "\(sim)")
    }
}
