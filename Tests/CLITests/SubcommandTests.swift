import Foundation
import SMP
import SMPTestSupport
import Testing

import Glibc

/// A group named alone lists its subcommands; a typo gets a suggestion.
@Suite("Groups without a subcommand, mistyped subcommands (issue 32)")
struct SubcommandTests {
    @Test("a group without its subcommand lists them (exit 2), also after global options")
    func groupWithoutLeaf() async throws {
        for arguments in [["image"], ["--udp", "127.0.0.1:9", "image"], ["image", "--udp", "127.0.0.1:9"]] {
            let result = try await CLI.mcumgr(arguments)
            Expect.failure(result, status: 2, mentioning: "'mcumgr image' needs a subcommand: list, ")
            #expect(!result.stderr.contains("Unknown option"), "\(result)")
        }
    }

    @Test("a mistyped subcommand gets a suggestion (exit 2)", arguments: [
        (["imgae", "list"], "'imgae' is not a subcommand of 'mcumgr'; did you mean 'image'?"),
        (["image", "lsit"], "'lsit' is not a subcommand of 'mcumgr image'; did you mean 'list'?"),
        (["--udp", "127.0.0.1:9", "fs", "uplaod", "a", "b"], "did you mean 'upload'?"),
    ])
    func typo(arguments: [String], message: String) async throws {
        Expect.failure(try await CLI.mcumgr(arguments), status: 2, mentioning: message)
    }
}
