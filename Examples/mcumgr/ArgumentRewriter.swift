import ArgumentParser

/// Rearranges the command line before parsing, so that it reads as Apache's Go `mcumgr` does:
///
/// - global options (connection, `--json`, `--timeout`, `--retries`, `--mtu`, `-v`, `--log-level`) found
///   before or between the subcommand names move to just after them, where every command's
///   shared option group parses them: `mcumgr --udp H --json image list` is `mcumgr image list --udp H --json`;
/// - Go's shorthands become subcommands: `stat NAME` → `stat read NAME`, `config NAME` →
///   `config read NAME`, `config NAME VALUE` → `config write NAME VALUE`, `datetime VALUE` →
///   `datetime set VALUE`; a group with a default subcommand gets it named (`datetime` → `datetime get`).
struct ArgumentRewriter {
    /// Global options that take a value.
    static let valued: Set<String> = ["--udp", "--serial", "--baud", "--line-length", "--ble", "--bluez", "--ble-socket", "--ble-type", "--ble-adapter", "--ble-security", "--hci", "--conntype", "--connstring", "-c", "--conn", "-t", "--timeout", "-r", "--retries", "--tries", "--mtu", "--log-level"]
    /// ArgumentParser's options of the program itself.
    static let toolOptions: Set<String> = ["--generate-completion-script", "--experimental-dump-help", "--version"]
    /// Global flags.
    static let flags: Set<String> = ["--ble-scan", "--bluez-no-acquire", "--raw", "--sim", "--json", "-v", "--verbose"]

    /// The rewritten arguments.
    private(set) var arguments: [String] = []
    /// The subcommand names found, e.g. `["image", "upload"]`.
    private(set) var path: [String] = []
    /// What is wrong with the command path, said before parsing: a group named without one of its
    /// subcommands (`mcumgr image`), or a word that is none of them (`mcumgr imgae list`, with a
    /// suggestion). Nil when the path is fine.
    private(set) var problem: String?

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
        // ArgumentParser's own options (completion scripts, the help dump, --version) need no subcommand.
        let toolOption = input.contains { Self.toolOptions.contains($0) || $0.hasPrefix("--generate-completion-script=") }
        if !asksForHelp, !toolOption, !node.configuration.subcommands.isEmpty, node.configuration.defaultSubcommand == nil {
            problem = Self.problem(at: node, path: path, word: index < input.count && input[index] != "--" ? input[index] : nil)
        }
        arguments = head + moved + input[index...]
    }

    /// Why the command line stops at `node` (a group) before naming one of its subcommands; `word`
    /// is the argument found there instead, if any.
    private static func problem(at node: any ParsableCommand.Type, path: [String], word: String?) -> String? {
        let names = node.configuration.subcommands.filter { $0.configuration.shouldDisplay }.map { name(of: $0) }
        let command = (["mcumgr"] + path).joined(separator: " ")
        guard let word else {
            // `mcumgr` alone prints its help (ArgumentParser's own behaviour).
            return path.isEmpty ? nil : "'\(command)' needs a subcommand: \(names.joined(separator: ", "))"
        }
        guard !word.hasPrefix("-"), word != "help" else { return nil }
        let suggestion = suggestion(for: word, among: names)
        return "'\(word)' is not a subcommand of '\(command)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
            + " (subcommands: \(names.joined(separator: ", ")))"
    }

    /// The subcommand `word` was most likely meant to be: the one whose name it begins (when only
    /// one does), else the closest within two edits (one for names of up to four letters).
    static func suggestion(for word: String, among names: [String]) -> String? {
        let lowered = word.lowercased()
        let prefixed = names.filter { $0.hasPrefix(lowered) }
        if prefixed.count == 1 { return prefixed[0] }
        let scored = names.map { ($0, editDistance(lowered, $0)) }.filter { $0.1 <= ($0.0.count <= 4 ? 1 : 2) }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance, with a swap of two neighbouring letters counted as one edit.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
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
