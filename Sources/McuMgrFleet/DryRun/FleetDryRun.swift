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
    /// The retry policy of the upgrade it stands for (``FleetConfiguration/retries`` and its
    /// back-offs): a device whose reading failed for a reason that may pass (busy, a timeout) is
    /// read again as the upgrade would try it again, instead of being called unreadable at once.
    public let retryPolicy: FleetConfiguration

    /// Makes a dry run; throws, with nothing sent, what a fleet upgrade of the same images would throw.
    /// `retries`, `retryBackOff` and `maximumRetryBackOff` are the upgrade's (``FleetConfiguration``).
    public init(
        devices: [FleetDevice], images: [FirmwareUpgradeImage], upgrade: FirmwareUpgradeConfiguration = FirmwareUpgradeConfiguration(),
        concurrency: FleetConcurrency = FleetConcurrency(), connector: FleetConnector = FleetConnector(),
        retries: Int = 0, retryBackOff: Duration = .seconds(2), maximumRetryBackOff: Duration = .seconds(60)
    ) throws(FleetConfigurationError) {
        let policy = FleetConfiguration(
            upgrade: upgrade, concurrency: concurrency, retries: retries, retryBackOff: retryBackOff, maximumRetryBackOff: maximumRetryBackOff)
        try policy.validate(devices: devices, images: images)
        self.devices = FleetDevice.numbered(devices)
        self.images = images
        self.upgrade = upgrade
        self.concurrency = concurrency
        self.connector = connector
        self.retryPolicy = policy
    }

    /// Reads every device and returns what the upgrade would do on each, with totals.
    public func run() async -> FleetDryRunReport {
        let images = self.images
        let upgrade = self.upgrade
        let policy = retryPolicy
        let clock = connector.clock
        let entries = await FleetSurvey.each(
            devices, concurrency: concurrency, connector: connector,
            read: { device, connection in
                // As the upgrade would: a failure that may pass (busy, a timeout) is tried again after the back-off.
                var attempt = 0
                while true {
                    attempt += 1
                    let entry = await Self.read(device, connection, images: images, upgrade: upgrade)
                    guard case .unreadable(let failure) = entry.action, !Task.isCancelled,
                          let delay = policy.retryDelay(after: failure, attempt: attempt) else { return entry }
                    do { try await clock.sleep(for: delay) } catch { return entry }
                }
            },
            unreachable: { device, failure in FleetDryRunEntry(device: device, action: .unreadable(failure), running: [:]) })
        return FleetDryRunReport(entries: entries, images: images)
    }

    /// One reading of `device`: what the upgrade would do, or why it would refuse or could not read it.
    private static func read(
        _ device: FleetDevice, _ connection: DeviceConnection, images: [FirmwareUpgradeImage], upgrade: FirmwareUpgradeConfiguration
    ) async -> FleetDryRunEntry {
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
    }
}
