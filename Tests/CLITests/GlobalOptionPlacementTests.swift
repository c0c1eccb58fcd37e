import Foundation
import SMPTestSupport
import Testing

/// Every global option goes before the subcommand too (Go mcumgr's order): `mcumgr` moves the ones
/// it knows to after the subcommand before parsing, from a list of its own. This takes the options
/// from ArgumentParser's description of a command (`--experimental-dump-help`), so a global option
/// added to the command but not to that list fails here instead of reaching users as an "unknown
/// option" (as `--bluez-no-acquire` did in the BLE VM).
@Suite("Global options before the subcommand")
struct GlobalOptionPlacementTests {
    /// One option or flag of `mcumgr echo` as the dump describes it, with its spellings.
    struct Argument {
        let spellings: [String]
        let takesValue: Bool
    }

    /// The options and flags of `mcumgr echo` (all global: echo's own argument is positional),
    /// without help and version.
    static func echoOptions() async throws -> [Argument] {
        let dump = try await CLI.mcumgr(["echo", "--experimental-dump-help"])
        #expect(dump.status == 0, "\(dump.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let command = try #require(root["command"] as? [String: Any])
        let arguments = try #require(command["arguments"] as? [[String: Any]])
        return arguments.compactMap { argument in
            guard let kind = argument["kind"] as? String, kind == "option" || kind == "flag" else { return nil }
            let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                guard let text = name["name"] as? String else { return nil }
                return (name["kind"] as? String == "short" ? "-" : "--") + text
            }
            guard !names.contains("--help"), !names.contains("--version") else { return nil }
            return Argument(spellings: names, takesValue: kind == "option")
        }
    }

    @Test("each option and flag of `mcumgr echo`, in each spelling, is taken before the subcommand (never an unknown option)")
    func everyGlobalOptionBeforeTheSubcommand() async throws {
        let options = try await Self.echoOptions()
        // The dump lists the connection, session and output options (more than a handful).
        #expect(options.count >= 20, "\(options.map(\.spellings))")
        for option in options {
            for spelling in option.spellings {
                // Two connections named as well: the command stops at validation (usage, exit 2)
                // once the options parsed, whatever the option under test does; nothing is sent.
                let arguments = [spelling] + (option.takesValue ? ["x"] : []) + ["echo", "hi", "--serial", "/dev/null", "--udp", "127.0.0.1"]
                let result = try await CLI.mcumgr(arguments, timeout: 60)
                #expect(result.status == 2, "\(arguments): exit \(result.status), \(result.stderr)")
                #expect(!result.stderr.contains("Unknown option"), "\(arguments): \(result.stderr)")
            }
        }
    }
}
