/// Settings as a Zephyr application keeps them: values in RAM (what read and write touch) and
/// the persisted copy in the storage partition (what save writes and load reads back).
///
/// Bounded like a device's: at most `maximumEntries` settings and `maximumBytes` of names and
/// values. Every stored name is also in RAM (a reboot loads storage into RAM, and a delete
/// removes both), so the bound on RAM bounds the storage copy too.
struct SettingsStore: Sendable {
    /// The most settings kept.
    let maximumEntries: Int
    /// The most bytes of names and values kept.
    let maximumBytes: Int
    /// The values in RAM, by full name (`root/key`).
    private(set) var runtime: [String: [UInt8]] = [:]
    /// The values in the storage partition.
    private(set) var persisted: [String: [UInt8]] = [:]
    /// Bytes of names and values in RAM.
    private(set) var bytes = 0

    init(maximumEntries: Int = .max, maximumBytes: Int = .max) {
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
    }

    func value(named name: String) -> [UInt8]? { runtime[name] }

    /// Sets a value; false (nothing changed) when it does not fit the bounds.
    mutating func set(_ value: [UInt8], named name: String) -> Bool {
        let old = runtime[name].map { name.utf8.count + $0.count } ?? 0
        let new = name.utf8.count + value.count
        if old == 0 && runtime.count >= maximumEntries { return false }
        guard bytes - old + new <= maximumBytes else { return false }
        runtime[name] = value
        bytes += new - old
        return true
    }

    /// Deletes the value from RAM and storage; deleting what is not there succeeds.
    mutating func delete(named name: String) {
        if let old = runtime.removeValue(forKey: name) { bytes -= name.utf8.count + old.count }
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
        for (name, value) in persisted {
            if let old = runtime[name] { bytes -= name.utf8.count + old.count }
            runtime[name] = value
            bytes += name.utf8.count + value.count
        }
    }

    /// What a reboot leaves: the stored values only.
    mutating func reboot() {
        runtime = persisted
        bytes = runtime.reduce(0) { $0 + $1.key.utf8.count + $1.value.count }
    }

    /// Erases the storage partition's copy.
    mutating func eraseStorage() {
        persisted = [:]
    }
}
