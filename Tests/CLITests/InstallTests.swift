import Foundation
import SMP
import SMPTestSupport
import Testing

import Glibc

/// `make install` into an empty folder, from the build the tests use.
@Suite("make install (issue 32)")
struct InstallTests {
    /// `make install` from the debug build this run made (`BUILD=0`: a release build does not
    /// belong in the suite; `make install` without it runs `swift build -c release` first, the
    /// only difference).
    @Test("make install PREFIX=<empty folder> installs both programs, the zip library, completions (and man pages once made); bin/mcumgr --version prints the version")
    func makeInstall() async throws {
        let prefix = CLI.temporaryDirectory().appendingPathComponent("prefix")
        defer { try? FileManager.default.removeItem(at: prefix.deletingLastPathComponent()) }
        let built = URL(fileURLWithPath: try BuiltProducts.require("mcumgr")).deletingLastPathComponent().path
        let make = try await CLI.run("/usr/bin/env", [
            "make", "-C", CLI.packageRoot.path, "install", "PREFIX=\(prefix.path)", "BUILD=0", "BUILD_DIR=\(built)",
        ], timeout: 300)
        #expect(make.status == 0, "\(make)")
        let version = try await CLI.run(prefix.appendingPathComponent("bin/mcumgr").path, ["--version"])
        #expect(version.status == 0 && version.stdout == SwiftMcuMgr.version + "\n", "\(version)")
        let files = [
            "bin/mcumgr-sim", "lib/mcumgr/libMcuMgrZIP.so",
            "share/bash-completion/completions/mcumgr", "share/bash-completion/completions/mcumgr-sim",
            "share/zsh/site-functions/_mcumgr", "share/fish/vendor_completions.d/mcumgr.fish",
        ]
        for file in files {
            let size = (try? FileManager.default.attributesOfItem(atPath: prefix.appendingPathComponent(file).path)[.size] as? Int) ?? 0
            #expect(size > 0, "\(file) is missing or empty")
        }
        let bash = try String(contentsOf: prefix.appendingPathComponent("share/bash-completion/completions/mcumgr"), encoding: .utf8)
        #expect(bash.contains("upgrade") && bash.contains("--udp"), "not mcumgr's completion script")
        // The installed mcumgr finds the zip library in PREFIX/lib/mcumgr (a DFU package needs it).
        let manuals = CLI.packageRoot.appendingPathComponent(".build/plugins/GenerateManual/outputs")
        if FileManager.default.fileExists(atPath: manuals.path) {
            let pages = try FileManager.default.contentsOfDirectory(atPath: prefix.appendingPathComponent("share/man/man1").path)
            #expect(pages.contains("mcumgr.1") && pages.contains("mcumgr-sim.1"), "\(pages)")
        }
    }
}
