/// Settings as a Zephyr application keeps them: values in RAM (what read and write touch) and
/// the persisted copy in the storage partition (what save writes and load reads back).
struct SettingsStore: Sendable {
    /// The values in RAM, by full name (`root/key`).
    private(set) var runtime: [String: [UInt8]] = [:]
    /// The values in the storage partition.
    private(set) var persisted: [String: [UInt8]] = [:]

    func value(named name: String) -> [UInt8]? { runtime[name] }

    mutating func set(_ value: [UInt8], named name: String) { runtime[name] = value }

    /// Deletes the value from RAM and storage; deleting what is not there succeeds.
    mutating func delete(named name: String) {
        runtime[name] = nil
        persisted[name] = nil
    }

    /// Writes RAM values to storage (all, or those under `subtree`).
    mutating func save(subtree: String? = nil) {
        for (name, value) in runtime where subtree.map({ name == $0 || name.hasPrefix($0 + "/") }) ?? true {
            persisted[name] = value
        }
    }

    /// Loads stored values into RAM, as `settings_load()` does at boot.
    mutating func load() {
        for (name, value) in persisted { runtime[name] = value }
    }

    /// What a reboot leaves: the stored values only.
    mutating func reboot() {
        runtime = persisted
    }

    /// Erases the storage partition's copy.
    mutating func eraseStorage() {
        persisted = [:]
    }
}
