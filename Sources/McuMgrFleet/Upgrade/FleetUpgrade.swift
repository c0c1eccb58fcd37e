import Logging
import McuMgr
import SMP
import Synchronization

/// Upgrades many devices with the same images: one `FirmwareUpgradeManager` upgrade per device,
/// so many at once (``FleetConcurrency``), retries with back-off, a failure limit, canaries first,
/// and pause, resume and cancel for all.
///
/// ```swift
/// let fleet = try FleetUpgrade(devices: try FleetDeviceList.load(path: "devices.txt"), images: [image])
/// let log = fleet.events()                // any number of subscribers, each sees every event
/// fleet.start()
/// for await event in log { print(event) }
/// let report = await fleet.result()       // per device: upgraded, unchanged, failed (state, error), not started
/// ```
///
/// A device already running the images, confirmed, is read and left alone (``FleetDeviceOutcome/unchanged(_:)``),
/// so running a fleet again only works on the devices that are not done.
public final class FleetUpgrade: Sendable {
    /// The devices, numbered in order.
    public let devices: [FleetDevice]
    /// The images every device gets.
    public let images: [FirmwareUpgradeImage]
    /// Policies and each device's upgrade configuration.
    public let configuration: FleetConfiguration
    /// How devices are reached, and the fleet's clock.
    public let connector: FleetConnector

    private let broadcast = FleetEventBroadcast<FleetEvent>()
    private let board: FleetStatusBoard
    private let control = FleetControl()
    private let logger: Logger
    private let task = Mutex<Task<FleetReport, Never>?>(nil)

    /// Makes a fleet upgrade (not started); throws, with nothing sent, for an empty fleet, limits
    /// that cannot work, or images and an upgrade configuration a single upgrade would refuse.
    public init(
        devices: [FleetDevice], images: [FirmwareUpgradeImage], configuration: FleetConfiguration = FleetConfiguration(),
        connector: FleetConnector = FleetConnector(), logger: Logger = Logger(label: "mcumgr.fleet")
    ) throws(FleetConfigurationError) {
        try configuration.validate(devices: devices, images: images)
        self.devices = FleetDevice.numbered(devices)
        self.images = images
        self.configuration = configuration
        self.connector = connector
        self.logger = logger
        self.board = FleetStatusBoard(devices: self.devices)
    }

    /// A new stream of the fleet's events from now on (subscribe before ``start()`` to see them
    /// all); it ends after ``FleetEvent/finished(_:)``.
    public func events(bufferingPolicy: AsyncStream<FleetEvent>.Continuation.BufferingPolicy = .unbounded) -> AsyncStream<FleetEvent> {
        broadcast.subscribe(bufferingPolicy: bufferingPolicy)
    }

    /// Every device's status now, in fleet order.
    public var statuses: [FleetDeviceStatus] { board.all }

    /// Starts the fleet in the background on the connector's clock (once; later calls do nothing).
    public func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = connector.clock.task { await self.execute() }
        }
    }

    /// Waits for the end of the fleet (starting it if needed) and returns its report.
    public func result() async -> FleetReport {
        start()
        let running = task.withLock { $0 }!
        return await running.value
    }

    /// Starts the fleet and returns its report at the end.
    public func run() async -> FleetReport {
        await result()
    }

    /// Whether the fleet is paused.
    public var isPaused: Bool { control.isPaused }

    /// Starts no new device and holds the uploads of running ones after their chunks in flight
    /// (their other steps, such as a reset in progress, go on).
    public func pause() { control.pause() }

    /// Lets uploads and new devices go on.
    public func resume() { control.resume() }

    /// Cancels every running upgrade and starts no more devices; the devices keep what they
    /// received, and running the fleet again resumes their uploads.
    public func cancel() {
        guard control.cancel() else { return }
        broadcast.yield(.stopping(.cancelled))
        task.withLock { $0?.cancel() }
    }

    // MARK: - Running

    private func execute() async -> FleetReport {
        let clock = connector.clock
        let started = clock.now
        broadcast.yield(.started(devices))
        let upgrader = FleetDeviceUpgrader(
            images: images, configuration: configuration, connector: connector, board: board, control: control,
            broadcast: broadcast, logger: logger)
        let (items, unresolved) = connector.resolve(devices)
        for (device, failure) in unresolved {
            finish(device, .failed(failure), isCanary: device.index < configuration.canaryCount)
        }
        let canaries = items.filter { $0.device.index < configuration.canaryCount }
        let others = items.filter { $0.device.index >= configuration.canaryCount }
        if !canaries.isEmpty {
            await schedule(canaries, upgrader: upgrader, canaries: true)
            if control.stopReason == nil {
                broadcast.yield(.canariesPassed(count: canaries.count))
            }
        }
        await schedule(others, upgrader: upgrader, canaries: false)
        let report = FleetReport(statuses: board.all, stopReason: control.stopReason, duration: clock.now - started)
        broadcast.yield(.finished(report))
        broadcast.finish()
        return report
    }

    private func schedule(_ items: [FleetSlotItem], upgrader: FleetDeviceUpgrader, canaries: Bool) async {
        let control = self.control
        await FleetScheduler.run(
            items, concurrency: configuration.concurrency,
            gate: { await control.mayStart() },
            work: { item in
                let outcome = await upgrader.run(item, isCanary: canaries)
                self.finish(item.device, outcome, isCanary: canaries)
            },
            skip: { item in
                self.finish(item.device, .notStarted(control.stopReason ?? .cancelled), isCanary: canaries)
            })
    }

    /// Records how a device ended, and stops the fleet when a canary failed or the failure limit is reached.
    private func finish(_ device: FleetDevice, _ outcome: FleetDeviceOutcome, isCanary: Bool) {
        board.update(device.index) { status in
            status.phase = .finished
            status.outcome = outcome
        }
        broadcast.yield(.device(device, .finished(outcome)))
        guard case .failed = outcome else { return }
        var stop: FleetStopReason?
        if isCanary, control.stop(.canaryFailed(device: device.label)) {
            stop = .canaryFailed(device: device.label)
        }
        if let reached = control.recordFailure(limit: configuration.maximumFailures) { stop = reached }
        if let stop { broadcast.yield(.stopping(stop)) }
    }
}
