import McuMgr
import McuMgrConnection
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
}

extension SMPError {
    /// Whether the device answered (with an error): it was reached.
    var isDeviceAnswer: Bool {
        if case .device = self { return true }
        return false
    }
}
