import ArgumentParser
import McuMgr
import SMP
import McuMgrTools

extension MCUmgr {
    /// `mcumgr enum count|list|single N|details`.
    struct Enum: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enum", abstract: "List the management groups the device offers.",
            subcommands: [Count.self, List.self, Single.self, Details.self])
    }
}

/// A group id and its usual name, in JSON.
private struct GroupRecord: Encodable {
    let group: UInt16, name: String
    init(_ id: UInt16) {
        group = id
        name = SMPGroup(rawValue: id).description
    }
}

extension MCUmgr.Enum {
    /// `mcumgr enum count`.
    struct Count: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "count", abstract: "Count the device's management groups.")

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let count: Int }

        func run() async throws {
            let count = try await global.withClient { try await EnumerationManager(client: $0).count() }
            try global.output.emit(Answer(count: count)) { "\(count)" }
        }
    }

    /// `mcumgr enum list`.
    struct List: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the device's group ids, in registration order.")

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let groups: [GroupRecord] }

        func run() async throws {
            let ids = try await global.withClient { try await EnumerationManager(client: $0).list() }
            try global.output.emit(Answer(groups: ids.map(GroupRecord.init))) {
                DeviceTables.groups(ids)
            }
        }
    }

    /// `mcumgr enum single N`.
    struct Single: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "single", abstract: "Show the group at one position of the device's list.")

        @Argument(help: "The position (0 is the first).")
        var index: Int

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable { let index: Int, group: UInt16, name: String, end: Bool }

        func validate() throws {
            guard index >= 0 else { throw ValidationError("the index must be 0 or more") }
        }

        func run() async throws {
            let entry = try await global.withClient { try await EnumerationManager(client: $0).single(index: index) }
            let name = SMPGroup(rawValue: entry.group).description
            try global.output.emit(Answer(index: index, group: entry.group, name: name, end: entry.isLast)) {
                "\(entry.group) (\(name))\(entry.isLast ? ", the last group" : "")"
            }
        }
    }

    /// `mcumgr enum details [GROUP…]`.
    struct Details: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(commandName: "details", abstract: "Show the groups' names and handler counts.")

        @Argument(help: "Only these group ids (default: all).")
        var groups: [UInt16] = []

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let details = try await global.withClient { try await EnumerationManager(client: $0).details(groups: groups.isEmpty ? nil : groups) }
            try global.output.emit(GroupDetailsResponse(groups: details)) {
                DeviceTables.groupDetails(details)
            }
        }
    }
}
