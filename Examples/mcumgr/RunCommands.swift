import ArgumentParser
import McuMgr
import McuMgrConnection

extension MCUmgr {
    /// `mcumgr run test [NAME [TOKEN]]|list`: Go mcumgr's run command (Mynewt's run-test group, 7).
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run", abstract: "Run the test suites built into the device (Mynewt's run group).",
            subcommands: [Test.self, List.self])
    }
}

extension MCUmgr.Run {
    /// `mcumgr run test [NAME [TOKEN]]`.
    struct Test: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "test", abstract: "Run one test suite, or all of them; the results go to the device's log.")

        @Argument(help: "The suite to run (default: all).")
        var name: String?

        @Argument(help: "Text added to the result lines in the device log.")
        var token: String?

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withClient { try await RunManager(client: $0).test(name, token: token) }
            try global.output.emit(Done(action: "run-test", details: ["test": .string(name ?? "all")])) {
                "Done: running \(name.map { "test suite \($0)" } ?? "all test suites"); the results go to the device log ('mcumgr log show')"
            }
        }
    }

    /// `mcumgr run list`.
    struct List: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the device's test suites.")

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let run_list: [String] }

        func run() async throws {
            let suites = try await global.withClient { try await RunManager(client: $0).list() }
            try global.output.emit(Answer(run_list: suites)) { suites.joined(separator: "\n") }
        }
    }
}
