import SMP

/// The enumeration group, 10: which management groups the device offers.
///
/// Errors arrive as `SMPError.device(.enumeration(...))`, e.g. `ENUM_MGMT_ERR_INDEX_TOO_LARGE`.
public struct EnumerationManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient

    /// Makes a manager over `client`.
    public init(client: SMPClient) { self.client = client }

    /// Counts the device's management groups.
    public func count() async throws -> Int {
        try await client.request(.read, group: .enumeration, command: Command.count, body: SMPEmptyMessage(), as: GroupCountResponse.self).count
    }

    /// Lists the device's group ids, in registration order.
    public func list() async throws -> [UInt16] {
        try await client.request(.read, group: .enumeration, command: Command.list, body: SMPEmptyMessage(), as: GroupListResponse.self).groups
    }

    /// Reads the group at `index` of the device's list, and whether it is the last one.
    public func single(index: Int = 0) async throws -> GroupAtIndex {
        try await client.request(.read, group: .enumeration, command: Command.single, body: GroupAtIndexRequest(index: index), as: GroupAtIndex.self)
    }

    /// Reads the details of `groups` (`nil`: every group).
    public func details(groups: [UInt16]? = nil) async throws -> [GroupDetails] {
        try await client.request(.read, group: .enumeration, command: Command.details, body: GroupDetailsRequest(groups: groups), as: GroupDetailsResponse.self).groups
    }

    private enum Command {
        static let count: UInt8 = 0
        static let list: UInt8 = 1
        static let single: UInt8 = 2
        static let details: UInt8 = 3
    }
}
