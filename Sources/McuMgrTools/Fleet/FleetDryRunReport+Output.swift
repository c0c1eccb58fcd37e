import McuMgr
import McuMgrFleet

extension FleetDryRunReport {
    /// A table (device, running, new, action, steps or problem) and a line of totals.
    public var text: String {
        let rows = entries.map { entry -> [String] in
            let running = Self.versions(entry.running)
            let new = Self.versions(entry.new)
            let detail = entry.problem ?? (entry.steps.isEmpty ? "-" : entry.steps.joined(separator: ", "))
            return [entry.device.label, running, new, entry.action.category, detail]
        }
        let table = TextFormat.table(header: ["DEVICE", "RUNNING", "NEW", "ACTION", "STEPS"], rows: rows)
        let t = totals
        let line = "Dry run: \(entries.count) devices: \(t["upload"]!) upload, \(t["test"]!) test, \(t["confirm"]!) confirm, "
            + "\(t["nothing"]!) nothing, \(t["refuse"]!) refuse, \(t["unreadable"]!) unreadable; "
            + "\(TextFormat.size(Double(bytesToUpload))) to upload"
        return table + "\n" + line
    }

    /// `1.0.0`, or `0=1.0.0 1=1.2.0` for several images; `-` for none.
    static func versions(_ versions: [Int: String]) -> String {
        if versions.isEmpty { return "-" }
        if versions.count == 1, let only = versions[0] { return only }
        return versions.keys.sorted().map { "\($0)=\(versions[$0]!)" }.joined(separator: " ")
    }
}

extension FleetDryRunReport: Encodable {
    private enum Keys: String, CodingKey {
        case ok, action, devices, totals
        case bytesToUpload = "bytes_to_upload", exitStatus = "exit_status"
    }

    /// `{"ok", "action": "fleet-dry-run", "devices": […], "totals": {…}, "bytes_to_upload", "exit_status"}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(exitStatus == .success, forKey: .ok)
        try c.encode("fleet-dry-run", forKey: .action)
        try c.encode(entries, forKey: .devices)
        try c.encode(totals, forKey: .totals)
        try c.encode(bytesToUpload, forKey: .bytesToUpload)
        try c.encode(exitStatus.rawValue, forKey: .exitStatus)
    }
}

extension FleetDryRunEntry: Encodable {
    private enum Keys: String, CodingKey {
        case index, name, connection, action, steps, running, new, bootloader, problem
    }

    /// The device, its action category and steps, running and new versions (by image number as
    /// text), the bootloader mode's name, and the problem of a refused or unreadable device.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(device.index, forKey: .index)
        try c.encode(device.name, forKey: .name)
        try c.encode(device.target.description, forKey: .connection)
        try c.encode(action.category, forKey: .action)
        try c.encode(steps, forKey: .steps)
        try c.encode(Dictionary(uniqueKeysWithValues: running.map { (String($0.key), $0.value) }), forKey: .running)
        try c.encode(Dictionary(uniqueKeysWithValues: new.map { (String($0.key), $0.value) }), forKey: .new)
        try c.encode(bootloader.map { "\($0)" }, forKey: .bootloader)
        try c.encode(problem, forKey: .problem)
    }
}
