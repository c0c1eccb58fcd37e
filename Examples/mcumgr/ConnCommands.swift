import ArgumentParser
import McuMgrConnection
import McuMgrTools

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
            commandName: "add",
            abstract: "Save a connection profile.",
            discussion: """
                Give the connection as options (--udp 192.0.2.1:1337, --sim, --ble ADDRESS) or in Go mcumgr's \
                form: mcumgr conn add NAME type=udp connstring=[192.0.2.1]:1337. --timeout, --retries and --mtu \
                are saved with it: 'mcumgr -c NAME' uses them unless they are given again.
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
                default: throw CommandFailure(.usage, "unknown profile setting '\(parts[0])'; use type= and connstring=")
                }
            }
            let spec: ConnectionSpec
            if type != nil || connString != nil {
                guard global.udp == nil, global.ble == nil, global.bluez == nil, global.bleSocket == nil, !global.sim, !global.bleScan, global.connType == nil else {
                    throw CommandFailure(.usage, "give the connection either as options or as type=/connstring=, not both")
                }
                spec = try ConnectionSpec(type: type ?? "udp", connString: connString)
            } else {
                let (given, named) = try global.connection()
                guard named else {
                    throw CommandFailure(.usage, "name the connection to save: --udp HOST[:PORT], --sim, --ble ADDRESS, or type=udp connstring=HOST:PORT")
                }
                spec = given
            }
            // Every connection setting the command line gives is saved: the link, and the session's
            // timeout, retries and packet size (`-c NAME` uses them unless given again).
            var profile = ConnectionProfile(spec)
            profile.timeout = global.timeout.map(\.seconds)
            profile.retries = global.retries ?? global.tries.map { $0 - 1 }
            profile.mtu = global.mtu
            try ProfileStore().update { $0.connections[name] = profile }
            var details: [String: JSONValue] = [
                "name": .string(name), "type": .string(profile.type), "connstring": profile.connstring.map { .string($0) } ?? .null,
            ]
            if let timeout = profile.timeout { details["timeout"] = .number(timeout) }
            if let retries = profile.retries { details["retries"] = .integer(Int64(retries)) }
            if let mtu = profile.mtu { details["mtu"] = .integer(Int64(mtu)) }
            try global.output.emit(Done(action: "conn-add", details: details)) {
                "saved connection '\(name)': \(profile.summary)"
            }
        }
    }

    /// `mcumgr conn show [NAME]`.
    struct Show: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the saved connection profiles.")

        @Argument(help: "Show only this profile.")
        var name: String?

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable {
            let connections: [String: ConnectionProfile]
        }

        func run() async throws {
            var profiles = try ProfileStore().load().connections
            if let name {
                guard let profile = profiles[name] else { throw ProfileStoreError.notFound(name: name, path: nil) }
                profiles = [name: profile]
            }
            try global.output.emit(Answer(connections: profiles)) {
                if profiles.isEmpty { return "no connection profiles; add one with 'mcumgr conn add NAME --udp HOST[:PORT]'" }
                return DeviceTables.profiles(profiles)
            }
        }
    }

    /// `mcumgr conn remove NAME` (Go: `conn delete`).
    struct Remove: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Delete a connection profile.", aliases: ["delete"])

        @Argument(help: "The profile's name.")
        var name: String

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try ProfileStore().update { profiles throws(ProfileStoreError) in
                guard profiles.connections.removeValue(forKey: name) != nil else { throw .notFound(name: name, path: nil) }
            }
            try global.output.emit(Done(action: "conn-remove", details: ["name": .string(name)])) {
                "removed connection '\(name)'"
            }
        }
    }
}
