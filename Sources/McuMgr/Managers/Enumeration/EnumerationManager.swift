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
    public func count() async throws(SMPError) -> Int {
        try await client.send(GroupCountRead()).count
    }

    /// Lists the device's group ids, in registration order.
    public func list() async throws(SMPError) -> [UInt16] {
        try await client.send(GroupListRead()).groups
    }

    /// Reads the group at `index` of the device's list, and whether it is the last one.
    public func single(index: Int = 0) async throws(SMPError) -> GroupAtIndex {
        try await client.send(GroupAtIndexRequest(index: index))
    }

    /// Reads the details of `groups` (`nil`: every group).
    public func details(groups: [UInt16]? = nil) async throws(SMPError) -> [GroupDetails] {
        try await client.send(GroupDetailsRequest(groups: groups)).groups
    }
}
