import Hex
import McuMgr
import McuMgrTools
import SMP

/// What every device of a fleet runs (`mcumgr fleet list`): each device's image table, read once.
public struct FleetInventory: Sendable {
    /// The devices, numbered in order.
    public let devices: [FleetDevice]
    /// How many devices are read at once.
    public let concurrency: FleetConcurrency
    /// How devices are reached.
    public let connector: FleetConnector

    /// Makes an inventory of `devices`.
    public init(devices: [FleetDevice], concurrency: FleetConcurrency = FleetConcurrency(), connector: FleetConnector = FleetConnector()) {
        self.devices = FleetDevice.numbered(devices)
        self.concurrency = concurrency
        self.connector = connector
    }

    /// Reads each device's image table.
    public func run() async -> FleetInventoryReport {
        let entries = await FleetSurvey.each(
            devices, concurrency: concurrency, connector: connector,
            read: { device, connection in
                do throws(SMPError) {
                    return FleetInventoryEntry(device: device, slots: try await ImageManager(client: connection.client).list(), failure: nil)
                } catch {
                    return FleetInventoryEntry(device: device, slots: nil, failure: FleetFailure(
                        phase: .upgrade(.validate), reason: .session(error), reachedDevice: error.isDeviceAnswer))
                }
            },
            unreachable: { device, failure in FleetInventoryEntry(device: device, slots: nil, failure: failure) })
        return FleetInventoryReport(entries: entries)
    }
}

/// One device of an inventory.
public struct FleetInventoryEntry: Sendable {
    /// The device.
    public let device: FleetDevice
    /// Its image table, when it could be read.
    public let slots: [ImageSlot]?
    /// Why it could not be read.
    public let failure: FleetFailure?

    /// The running slot of each image, in image order.
    public var running: [ImageSlot] { (slots ?? []).filter(\.active).sorted { $0.image < $1.image } }
}

/// An inventory's answer: one entry per device, in fleet order.
public struct FleetInventoryReport: Sendable {
    /// The entries.
    public let entries: [FleetInventoryEntry]

    /// The exit status: 0 when every device was read, 3 when none was, else 1.
    public var exitStatus: ExitStatus {
        let unread = entries.filter { $0.slots == nil }.count
        if unread == 0 { return .success }
        return unread == entries.count ? .transport : .device
    }

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

extension SMPError {
    /// Whether the device answered (with an error): it was reached.
    var isDeviceAnswer: Bool {
        if case .device = self { return true }
        return false
    }
}
