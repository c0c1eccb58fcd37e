import SMP

/// The Zephyr basic group, 63: erase the storage partition.
///
/// Errors arrive as `SMPError.device(.basic(...))`, e.g. `ZEPHYRBASIC_MGMT_ERR_FLASH_ERASE_FAILED`.
public struct BasicManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient

    /// Makes a manager over `client`.
    public init(client: SMPClient) { self.client = client }

    /// Erases the whole `storage_partition` (settings, file systems kept there, …).
    public func eraseStorage() async throws(SMPError) {
        _ = try await client.send(StorageErase())
    }
}
