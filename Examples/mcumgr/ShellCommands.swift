import ArgumentParser
import McuMgr
import McuMgrTools

extension MCUmgr {
    /// `mcumgr shell exec ARGS…`.
    struct Shell: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "shell", abstract: "Run shell commands on the device.", subcommands: [Exec.self])
    }
}

extension MCUmgr.Shell {
    /// `mcumgr shell exec [--check] COMMAND [ARG…]`.
    struct Exec: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "exec", abstract: "Run a shell command line on the device and print its output.",
            discussion: """
                Everything after the first word of the command is passed on as it is, options included, so put \
                mcumgr's own options before it: mcumgr shell exec --json kernel version. mcumgr exits with the \
                command's status, as ssh does: 0 when its return value ('ret') is 0, else the value's magnitude \
                (Zephyr returns negative errno values: 'command not found' is -8, ENOEXEC, exit status 8), at most \
                255. The return value is also printed on standard error when it is not 0, and is in the JSON output. \
                With --check, a non-zero return value exits with status 1 instead (a fixed status for scripts).
                """)

        @Flag(name: .customLong("check"), help: "Exit with status 1 when the command's return value is not 0 (instead of the value's magnitude).")
        var check = false

        @OptionGroup var global: GlobalOptions

        @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The command and its arguments.", valueName: "command"))
        var argv: [String] = []

        private struct Answer: Encodable { let output: String, ret: Int }

        func validate() throws {
            guard !argv.isEmpty else { throw ValidationError("Missing expected argument '<command>'") }
        }

        func run() async throws {
            let words = argv.first == "--" ? Array(argv.dropFirst()) : argv
            let result = try await global.withClient { try await ShellManager(client: $0).execute(words) }
            try global.output.emit(Answer(output: result.output, ret: result.returnCode)) {
                result.output.hasSuffix("\n") ? String(result.output.dropLast()) : result.output
            }
            if result.returnCode != 0 {
                if check { throw CommandFailure(.device, "the command returned \(result.returnCode)") }
                let status = Self.exitStatus(returning: result.returnCode)
                Console.err("mcumgr: the command returned \(result.returnCode) (exit status \(status))")
                throw ExitCode(status)
            }
        }

        /// The exit status for a command's return value: 0 for 0, else its magnitude, at most 255
        /// (never 0 for a failure: 256 would wrap to success).
        static func exitStatus(returning value: Int) -> Int32 {
            value == 0 ? 0 : Int32(min(value.magnitude, 255))
        }
    }
}
