import SMP

/// The settings ("config") group, 3: read, write and delete settings, and commit, load and save them.
///
/// Errors arrive as `SMPError.device(.settings(...))`, e.g. `SETTINGS_MGMT_ERR_KEY_NOT_FOUND`
/// for a missing key (Zephyr also answers that for a write its handler rejects).
public struct ConfigManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient

    /// Makes a manager over `client`.
    public init(client: SMPClient) { self.client = client }

    /// Reads the setting `name`'s raw bytes, at most `maxSize` of them (`nil`: the device's limit).
    public func read(name: String, maxSize: Int? = nil) async throws -> SettingValue {
        try await client.request(.read, group: .settings, command: Command.value, body: SettingsReadRequest(name: name, maxSize: maxSize), as: SettingValue.self)
    }

    /// Writes `value` to the setting `name` (applied on `commit()`, kept across resets after `save()`).
    public func write(name: String, value: [UInt8]) async throws {
        _ = try await client.request(.write, group: .settings, command: Command.value, body: SettingsWriteRequest(name: name, value: value), as: SMPEmptyMessage.self)
    }

    /// Deletes the setting `name`.
    public func delete(name: String) async throws {
        _ = try await client.request(.write, group: .settings, command: Command.delete, body: SettingsDeleteRequest(name: name), as: SMPEmptyMessage.self)
    }

    /// Applies the settings written so far.
    public func commit() async throws {
        _ = try await client.request(.write, group: .settings, command: Command.commit, body: SMPEmptyMessage(), as: SMPEmptyMessage.self)
    }

    /// Loads the settings from persistent storage.
    public func load() async throws {
        _ = try await client.request(.read, group: .settings, command: Command.loadSave, body: SMPEmptyMessage(), as: SMPEmptyMessage.self)
    }

    /// Saves the settings to persistent storage.
    public func save() async throws {
        _ = try await client.request(.write, group: .settings, command: Command.loadSave, body: SMPEmptyMessage(), as: SMPEmptyMessage.self)
    }

    private enum Command {
        static let value: UInt8 = 0
        static let delete: UInt8 = 1
        static let commit: UInt8 = 2
        static let loadSave: UInt8 = 3
    }
}
