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
    public func read(name: String, maxSize: Int? = nil) async throws(SMPError) -> SettingValue {
        try await client.send(SettingsReadRequest(name: name, maxSize: maxSize))
    }

    /// Writes `value` to the setting `name` (applied on `commit()`, kept across resets after `save()`).
    public func write(name: String, value: [UInt8]) async throws(SMPError) {
        _ = try await client.send(SettingsWriteRequest(name: name, value: value))
    }

    /// Deletes the setting `name`.
    public func delete(name: String) async throws(SMPError) {
        _ = try await client.send(SettingsDeleteRequest(name: name))
    }

    /// Applies the settings written so far.
    public func commit() async throws(SMPError) {
        _ = try await client.send(SettingsCommit())
    }

    /// Loads the settings from persistent storage.
    public func load() async throws(SMPError) {
        _ = try await client.send(SettingsLoad())
    }

    /// Saves the settings to persistent storage.
    public func save() async throws(SMPError) {
        _ = try await client.send(SettingsSave())
    }
}
