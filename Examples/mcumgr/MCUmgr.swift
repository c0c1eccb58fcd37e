import ArgumentParser
import Logging
import McuMgrTools
import SMP
import SMPUDP

/// `mcumgr`: manage a device that speaks SMP (MCUmgr) — images and firmware upgrades, files,
/// settings, statistics, logs, shell — with the command tree of Apache's Go `mcumgr`.
struct MCUmgr: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcumgr",
        abstract: "Manage SMP (MCUmgr) devices: images, firmware upgrades, files, settings, statistics, logs and shell.",
        discussion: """
            Name the device with --udp HOST[:PORT], a saved profile (-c NAME, see 'mcumgr conn'), or Go mcumgr's \
            --conntype udp --connstring [HOST]:PORT. Without one, commands talk to a built-in simulated device \
            (--sim), fresh for each command, so every command can be tried at once.

            Global options (connection, --json, --timeout, --retries, --mtu, -v, --log-level) go before or after the subcommand.
            --json prints one JSON document on standard output (hashes as lowercase hex); messages and progress go to \
            standard error then, and a failure is a JSON object {"error": {"kind", "message", "device_rc", "group", \
            "group_rc"}} there as well.

            Exit status: 0 success, 1 the device answered with an error or cannot take the image, 2 usage error, \
            3 the device could not be reached (transport error or timeout), 4 invalid input file, key file or signature, \
            130 interrupted.
            """,
        version: SwiftMcuMgr.version,
        subcommands: [
            Image.self, Upgrade.self,
            Echo.self, Reset.self, DateTime.self, TaskStat.self, MPStat.self, Params.self, Info.self, Bootloader.self,
            Stat.self, Config.self, Log.self, FS.self, Shell.self, Enum.self, EraseStorage.self, Conn.self, Fleet.self, Scan.self,
            SUIT.self, Crash.self, Run.self, Conformance.self,
        ])
}

/// Parses the command line, runs the command, and turns every error into one line on standard
/// error and the documented exit status.
@main
enum Main {
    static func main() async {
        // One thread for the session, the engine and the socket: no hand-offs per packet.
        UDPTransport.runConcurrencyOnOneEventLoopThread()
        await execute(Array(CommandLine.arguments.dropFirst()))
    }

    /// Parses and runs `arguments` (the command line after the program name), then exits.
    nonisolated static func execute(_ arguments: [String]) async -> Never {
        let rewriter = ArgumentRewriter(arguments, root: MCUmgr.self)
        let helpHint = "run 'mcumgr \(rewriter.path.map { $0 + " " }.joined())--help' for usage"
        // Before parsing succeeds (a usage error), --json is looked for among mcumgr's own arguments.
        var json = rewriter.arguments.prefix { $0 != "--" }.contains("--json")
        if let problem = rewriter.problem {
            fail(CommandFailure(.usage, "\(problem); \(helpHint)"), json: json)
        }
        var command: any ParsableCommand
        do {
            command = try MCUmgr.parseAsRoot(rewriter.arguments)
        } catch {
            if MCUmgr.exitCode(for: error) == .success {
                Console.out(MCUmgr.fullMessage(for: error))
                Console.exit(0)
            }
            let message = MCUmgr.message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid arguments"
            fail(CommandFailure(.usage, "\(message.droppingPrefix("Error: ")); \(helpHint)"), json: json)
        }
        let global = (command as? any DeviceCommand)?.global
        json = global?.json ?? json
        LogLevels.bootstrap(global?.logLevel ?? .critical)
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            Console.exit(code.rawValue)
        } catch {
            if MCUmgr.exitCode(for: error) == .success, !(error is CommandFailure) {
                Console.out(MCUmgr.fullMessage(for: error))
                Console.exit(0)
            }
            fail(commandFailure(for: error), json: json)
        }
        Console.exit(0)
    }

    /// The failure for any error a command throws: an argument error is a usage error; the rest as `McuMgrTools` maps them.
    static func commandFailure(for error: any Error) -> CommandFailure {
        if let error = error as? ValidationError { return CommandFailure(.usage, error.message) }
        return CommandFailure(error)
    }

    /// Prints the failure in one line on standard error (and, with `--json`, as a JSON object on
    /// standard output unless the command printed its own document, a report) and exits with its status.
    static func fail(_ failure: CommandFailure, json: Bool) -> Never {
        let line = failure.message.split(whereSeparator: \.isNewline).joined(separator: " ")
        if json, !Output.printedDocument.load(ordering: .relaxed) { Console.out(failure.jsonDocument) }
        Console.err("mcumgr: error: \(line)")
        Console.exit(failure.status.rawValue)
    }
}

extension String {
    /// The string without `prefix` at its start.
    func droppingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
