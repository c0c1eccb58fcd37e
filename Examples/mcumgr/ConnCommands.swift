import ArgumentParser
import Foundation

/// A saved connection: a transport type and its connection string, as Go mcumgr's `conn add` keeps them.
struct ConnectionProfile: Codable, Sendable, Equatable {
    /// `udp`, `ble`, `serial` or `sim`.
    var type: String
    /// The address, e.g. `127.0.0.1:1337`; none for `sim` and a BLE scan.
    var connstring: String?
}

/// The connection profiles file: `connections.json` in `$MCUMGR_CONFIG_DIR`, else in
/// `$XDG_CONFIG_HOME/mcumgr`, else in `~/.config/mcumgr`.
struct ProfileStore {
    /// The file's path.
    let path: String

    /// The store the environment names.
    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let directory: String
        if let dir = environment["MCUMGR_CONFIG_DIR"], !dir.isEmpty {
            directory = dir
        } else if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            directory = xdg + "/mcumgr"
        } else {
            directory = (environment["HOME"] ?? NSHomeDirectory()) + "/.config/mcumgr"
        }
        path = directory + "/connections.json"
    }

    private struct File: Codable {
        var connections: [String: ConnectionProfile]
    }

    /// The saved profiles by name (none when the file does not exist).
    func load() throws -> [String: ConnectionProfile] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try JSONDecoder().decode(File.self, from: data).connections
        } catch {
            throw Failure(.input, "cannot read the connection profiles in \(path): \(error); fix or delete the file")
        }
    }

    /// Replaces the saved profiles.
    func save(_ profiles: [String: ConnectionProfile]) throws {
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data((try Output.encode(File(connections: profiles)) + "\n").utf8).write(to: url, options: .atomic)
        } catch {
            throw Failure(.input, "cannot write the connection profiles to \(path): \(error)")
        }
    }
}

extension MCUmgr {
    /// `mcumgr conn`: named connection profiles, used with `-c NAME`.
    struct Conn: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "conn",
            abstract: "Manage named connection profiles (used with -c NAME).",
            discussion: "Profiles live in connections.json under $XDG_CONFIG_HOME/mcumgr (or ~/.config/mcumgr; $MCUMGR_CONFIG_DIR overrides).",
            subcommands: [Add.self, Show.self, Remove.self])
    }
}

extension MCUmgr.Conn {
    /// `mcumgr conn add NAME (--udp HOST[:PORT] | type=udp connstring=HOST:PORT | --sim | --ble ADDRESS)`.
    struct Add: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a connection profile.",
            discussion: """
                Give the connection as options (--udp 192.0.2.1:1337, --sim, --ble ADDRESS) or in Go mcumgr's \
                form: mcumgr conn add NAME type=udp connstring=[192.0.2.1]:1337
                """)

        @Argument(help: "The profile's name.")
        var name: String

        @Argument(help: ArgumentHelp("Go mcumgr form: type=udp connstring=HOST:PORT.", valueName: "key=value"))
        var settings: [String] = []

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard !name.isEmpty, !name.hasPrefix("-") else { throw ValidationError("the profile name must not be empty or start with '-'") }
            for setting in settings where !setting.contains("=") {
                throw ValidationError("expected key=value (type=udp, connstring=HOST:PORT), not '\(setting)'")
            }
        }

        func run() async throws {
            var type: String?
            var connString: String?
            for setting in settings {
                let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
                let value = parts.count > 1 ? parts[1] : ""
                switch parts[0].lowercased() {
                case "type": type = value
                case "connstring": connString = value
                default: throw Failure(.usage, "unknown profile setting '\(parts[0])'; use type= and connstring=")
                }
            }
            let target: ConnectionTarget
            if type != nil || connString != nil {
                guard global.udp == nil, global.ble == nil, !global.sim, !global.bleScan, global.connType == nil else {
                    throw Failure(.usage, "give the connection either as options or as type=/connstring=, not both")
                }
                target = try ConnectionTarget.parse(type: type ?? "udp", connString: connString)
            } else {
                target = try global.target()
                if target == .simulator(implicit: true) {
                    throw Failure(.usage, "name the connection to save: --udp HOST[:PORT], --sim, --ble ADDRESS, or type=udp connstring=HOST:PORT")
                }
            }
            let store = ProfileStore()
            var profiles = try store.load()
            profiles[name] = target.profile
            try store.save(profiles)
            try global.output.emit(Done(action: "conn-add", details: ["name": .string(name), "type": .string(target.profile.type), "connstring": target.profile.connstring.map { .string($0) } ?? .null])) {
                "saved connection '\(name)': \(describe(target.profile))"
            }
        }
    }

    /// `mcumgr conn show [NAME]`.
    struct Show: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(abstract: "Show the saved connection profiles.")

        @Argument(help: "Show only this profile.")
        var name: String?

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable {
            let connections: [String: ConnectionProfile]
        }

        func run() async throws {
            var profiles = try ProfileStore().load()
            if let name {
                guard let profile = profiles[name] else { throw Failure(.usage, "no connection profile named '\(name)'; list them with 'mcumgr conn show'") }
                profiles = [name: profile]
            }
            try global.output.emit(Answer(connections: profiles)) {
                if profiles.isEmpty { return "no connection profiles; add one with 'mcumgr conn add NAME --udp HOST[:PORT]'" }
                return Format.table(
                    header: ["name", "type", "connstring"],
                    rows: profiles.keys.sorted().map { [$0, profiles[$0]!.type, profiles[$0]!.connstring ?? "-"] })
            }
        }
    }

    /// `mcumgr conn remove NAME` (Go: `conn delete`).
    struct Remove: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a connection profile.", aliases: ["delete"])

        @Argument(help: "The profile's name.")
        var name: String

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let store = ProfileStore()
            var profiles = try store.load()
            guard profiles.removeValue(forKey: name) != nil else {
                throw Failure(.usage, "no connection profile named '\(name)'; list them with 'mcumgr conn show'")
            }
            try store.save(profiles)
            try global.output.emit(Done(action: "conn-remove", details: ["name": .string(name)])) {
                "removed connection '\(name)'"
            }
        }
    }
}

private func describe(_ profile: ConnectionProfile) -> String {
    profile.connstring.map { "type=\(profile.type) connstring=\($0)" } ?? "type=\(profile.type)"
}
