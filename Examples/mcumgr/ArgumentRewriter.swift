import ArgumentParser

/// Rearranges the command line before parsing, so that it reads as Apache's Go `mcumgr` does:
///
/// - global options (connection, `--json`, `--timeout`, `--retries`, `--mtu`, `-v`) found
///   before or between the subcommand names move to just after them, where every command's
///   shared option group parses them: `mcumgr --udp H --json image list` is `mcumgr image list --udp H --json`;
/// - Go's shorthands become subcommands: `stat NAME` → `stat read NAME`, `config NAME` →
///   `config read NAME`, `config NAME VALUE` → `config write NAME VALUE`, `datetime VALUE` →
///   `datetime set VALUE`; a group with a default subcommand gets it named (`datetime` → `datetime get`).
struct ArgumentRewriter {
    /// Global options that take a value.
    static let valued: Set<String> = ["--udp", "--serial", "--baud", "--line-length", "--ble", "--bluez", "--ble-socket", "--ble-type", "--ble-adapter", "--ble-security", "--hci", "--conntype", "--connstring", "-c", "--conn", "-t", "--timeout", "-r", "--retries", "--tries", "--mtu"]
    /// Global flags.
    static let flags: Set<String> = ["--ble-scan", "--raw", "--sim", "--json", "-v", "--verbose"]

    /// The rewritten arguments.
    private(set) var arguments: [String] = []
    /// The subcommand names found, e.g. `["image", "upload"]`.
    private(set) var path: [String] = []

    /// Rewrites `input` (the arguments after the program name) for the command tree under `root`.
    init(_ input: [String], root: any ParsableCommand.Type) {
        var head: [String] = []
        var moved: [String] = []
        var node = root
        var index = 0
        scan: while index < input.count, !node.configuration.subcommands.isEmpty {
            let token = input[index]
            if token == "--" { break }
            if let count = Self.globalOptionLength(input, at: index) {
                moved += input[index..<min(index + count, input.count)]
                index += count
                continue
            }
            if token.hasPrefix("-") {
                head.append(token)
                index += 1
                continue
            }
            if let next = Self.subcommand(named: token, of: node) {
                head.append(token)
                path.append(token)
                node = next
                index += 1
                continue
            }
            if let shorthand = Self.shorthand(for: node, rest: input[index...]), let next = Self.subcommand(named: shorthand, of: node) {
                head.append(shorthand)
                path.append(shorthand)
                node = next
                continue
            }
            break scan
        }
        let asksForHelp = head.contains { ["-h", "--help", "help"].contains($0) }
        // `mcumgr --ble-scan` alone lists the devices found: the `scan` command.
        if !asksForHelp, path.isEmpty, moved.contains("--ble-scan") {
            path = ["scan"]
            arguments = ["scan"] + input
            return
        }
        if !asksForHelp, index == input.count || input[index] == "--",
           let fallback = node.configuration.defaultSubcommand {
            let name = Self.name(of: fallback)
            head.append(name)
            path.append(name)
        }
        arguments = head + moved + input[index...]
    }

    /// How many arguments the global option at `index` spans (1 or 2), or nil when it is none.
    private static func globalOptionLength(_ input: [String], at index: Int) -> Int? {
        let token = input[index]
        if flags.contains(token) { return 1 }
        if valued.contains(token) { return 2 }
        if token.hasPrefix("--"), let equals = token.firstIndex(of: "="), valued.contains(String(token[..<equals])) { return 1 }
        return nil
    }

    /// The subcommand of `node` called `name` (or with that alias).
    private static func subcommand(named name: String, of node: any ParsableCommand.Type) -> (any ParsableCommand.Type)? {
        node.configuration.subcommands.first { sub in
            Self.name(of: sub) == name || sub.configuration.aliases.contains(name)
        }
    }

    /// The subcommand Go's shorthand stands for at `node`, given the arguments from the first non-subcommand on.
    private static func shorthand(for node: any ParsableCommand.Type, rest: ArraySlice<String>) -> String? {
        switch name(of: node) {
        case "stat": return "read"
        case "datetime": return "set"
        case "config": return rest.filter { !$0.hasPrefix("-") }.count >= 2 ? "write" : "read"
        default: return nil
        }
    }

    /// The command's name as typed.
    static func name(of command: any ParsableCommand.Type) -> String {
        command.configuration.commandName ?? String(describing: command).lowercased()
    }
}
