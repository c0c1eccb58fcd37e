import Foundation
import SMP
import SMPTestSupport
import Testing

import Glibc

/// The `/lfs1` mount point is documented, and a path on no mount point fails naming the path.
@Suite("The simulator's file system, as users find it (issue 32)")
struct SimulatorFileSystemTests {
    @Test("mcumgr-sim --help names its /lfs1 mount point; a path elsewhere fails naming the path")
    func mountPoint() async throws {
        let help = try await CLI.run(try BuiltProducts.require("mcumgr-sim"), ["--help"])
        #expect(help.stdout.contains("/lfs1"), "\(help)")
        let file = CLI.temporaryDirectory().appendingPathComponent("data.bin")
        try Data("some data".utf8).write(to: file)
        let upload = try await CLI.mcumgr(["fs", "upload", file.path, "/data/data.bin"])
        Expect.failure(upload, status: 1, mentioning: "no file system is mounted where '/data/data.bin' begins")
        #expect(upload.stderr.contains("/lfs1"), "\(upload)")
    }
}
