import Hex
import McuMgr
import McuMgrFleet

extension FleetInventoryReport {
    /// A table: name (`-` for none), connection, running version (per image when several), whether
    /// confirmed, the hash's first 8 bytes (per image), or the error.
    public var text: String {
        let rows = entries.map { entry -> [String] in
            let connection = entry.device.target.description
            let name = entry.device.name ?? "-"
            guard entry.slots != nil else { return [name, connection, "-", "-", entry.failure?.cause ?? "unreadable"] }
            let running = entry.running
            let version = running.count == 1 && running[0].image == 0
                ? running[0].version : running.map { "\($0.image)=\($0.version)" }.joined(separator: " ")
            let confirmed = running.allSatisfy(\.confirmed) ? "confirmed" : "unconfirmed"
            let hash = running.map { String($0.hash.hexString.prefix(16)) }.joined(separator: " ")
            return [name, connection, version.isEmpty ? "-" : version, running.isEmpty ? "-" : confirmed, hash]
        }
        let read = entries.filter { $0.slots != nil }.count
        return TextFormat.table(header: ["NAME", "CONNECTION", "VERSION", "STATE", "HASH"], rows: rows)
            + "\n\(read) of \(entries.count) devices read"
    }
}

extension FleetInventoryReport: Encodable {
    private enum Keys: String, CodingKey { case ok, devices, exitStatus = "exit_status" }
    private enum EntryKeys: String, CodingKey { case index, name, connection, version, images, error }

    /// `{"ok", "devices": [{"index", "name", "connection", "version", "images", "error"}], "exit_status"}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(exitStatus == .success, forKey: .ok)
        var list = c.nestedUnkeyedContainer(forKey: .devices)
        for entry in entries {
            var e = list.nestedContainer(keyedBy: EntryKeys.self)
            try e.encode(entry.device.index, forKey: .index)
            try e.encode(entry.device.name, forKey: .name)
            try e.encode(entry.device.target.description, forKey: .connection)
            try e.encode(entry.running.first { $0.image == 0 }?.version, forKey: .version)
            try e.encode(entry.slots, forKey: .images)
            try e.encode(entry.failure?.cause, forKey: .error)
        }
        try c.encode(exitStatus.rawValue, forKey: .exitStatus)
    }
}
