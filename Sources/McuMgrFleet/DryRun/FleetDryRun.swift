import McuMgr
import McuMgrConnection
import SMP

/// What a fleet upgrade would do, device by device, with nothing changed: each device's
/// parameters, bootloader mode and image table are read and the upgrade planner
/// (`FirmwareUpgradeManager.preview`) says what it would do — as bulk-OTA systems report before acting.
public struct FleetDryRun: Sendable {
    /// The devices, numbered in order.
    public let devices: [FleetDevice]
    /// The images the upgrade would send.
    public let images: [FirmwareUpgradeImage]
    /// The upgrade's configuration (its mode, and whether downgrades are refused, matter here).
    public let upgrade: FirmwareUpgradeConfiguration
    /// How many devices are read at once.
    public let concurrency: FleetConcurrency
    /// How devices are reached.
    public let connector: FleetConnector

    /// Makes a dry run; throws, with nothing sent, what a fleet upgrade of the same images would throw.
    public init(
        devices: [FleetDevice], images: [FirmwareUpgradeImage], upgrade: FirmwareUpgradeConfiguration = FirmwareUpgradeConfiguration(),
        concurrency: FleetConcurrency = FleetConcurrency(), connector: FleetConnector = FleetConnector()
    ) throws(FleetConfigurationError) {
        try FleetConfiguration(upgrade: upgrade, concurrency: concurrency).validate(devices: devices, images: images)
        self.devices = FleetDevice.numbered(devices)
        self.images = images
        self.upgrade = upgrade
        self.concurrency = concurrency
        self.connector = connector
    }

    /// Reads every device and returns what the upgrade would do on each, with totals.
    public func run() async -> FleetDryRunReport {
        let images = self.images
        let upgrade = self.upgrade
        let entries = await FleetSurvey.each(
            devices, concurrency: concurrency, connector: connector,
            read: { device, connection in
                do throws(FirmwareUpgradeError) {
                    let preview = try await FirmwareUpgradeManager(client: connection.client).preview(images: images, configuration: upgrade)
                    return FleetDryRunEntry(device: device, preview: preview, images: images, mode: upgrade.mode)
                } catch {
                    // A refusal found before the table was kept: read it, to say what the device runs.
                    var error = error
                    if error.lastKnownSlots == nil, error.state != .requestMcuMgrParameters {
                        error.lastKnownSlots = try? await ImageManager(client: connection.client).list()
                    }
                    return FleetDryRunEntry(device: device, error: error)
                }
            },
            unreachable: { device, failure in FleetDryRunEntry(device: device, action: .unreadable(failure), running: [:]) })
        return FleetDryRunReport(entries: entries, images: images)
    }
}
