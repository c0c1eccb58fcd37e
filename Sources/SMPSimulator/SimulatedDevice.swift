import Logging
import SMP

/// A simulated Zephyr device with MCUboot that answers SMP like the real thing: every management
/// group of the protocol reference, flash slots with MCUboot's swap semantics, settings, files,
/// statistics and a log, behind a link model with buffers, latency, bandwidth and injected faults.
///
/// Feed it from any transport with ``receive(_:from:reply:)``, or serve a `LoopbackDevice`
/// (``serve(_:disconnectsOnReset:)``) or UDP (``SimulatorUDPServer``).
public actor SimulatedDevice {
    /// How the device is built.
    public nonisolated let configuration: DeviceConfiguration
    /// The link model in force.
    public internal(set) var link: LinkConfiguration
    /// The faults in force.
    public internal(set) var faults: FaultConfiguration

    /// The time source of the link model and the device (virtual in tests).
    public nonisolated let clock: SMPClock
    let core: DeviceCore
    let origin: SMPInstant
    let logger: Logger
    var random: SeededRandom

    // Link state.
    var inFlight = 0
    var maxInFlight = 0
    var arrivals = 0
    var records: [RequestRecord] = []
    var generation = 0
    var offlineUntil: SMPInstant?
    /// Until when the device answers nothing after a lying length field (``SimulatorQuirk/wedgesOnBadLength``).
    var wedgedUntil: SMPInstant?
    var linkDownUntil: [Int: SMPInstant] = [:]
    var processingTail: Task<Void, Never>?
    var ingressWireFree: SMPInstant
    var egressWireFree: SMPInstant
    var heldRequest: HeldPacket?
    var heldResponse: HeldPacket?
    var transports: [Int: TransportHooks] = [:]
    var servingTasks: [Task<Void, Never>] = []
    var bootWaiters: [BootWaiter] = []
    var nextBootWaiter = 0

    /// The most request records kept.
    static let recordLimit = 100_000

    /// Makes a device with empty flash (install images with ``install(_:image:slot:mark:)``).
    ///
    /// - Parameters:
    ///   - configuration: the device: images, slots, buffers, groups, limits.
    ///   - link: the link model: latency, bandwidth, buffer count, flash time.
    ///   - faults: the faults to inject (loss, duplicates, resets, busy answers…).
    ///   - clock: the device's time source.
    ///   - logger: receives one `debug` line per request and `notice` lines for resets and faults.
    public init(
        configuration: DeviceConfiguration = DeviceConfiguration(), link: LinkConfiguration = LinkConfiguration(),
        faults: FaultConfiguration = FaultConfiguration(), clock: SMPClock = .continuous, logger: Logger = Logger(label: "smp-simulator")
    ) {
        self.configuration = configuration
        self.link = link
        self.faults = faults
        self.logger = logger
        self.random = SeededRandom(seed: faults.seed)
        self.clock = clock
        self.origin = clock.now
        self.ingressWireFree = clock.now
        self.egressWireFree = clock.now
        self.core = DeviceCore(configuration: configuration, time: clock)
        core.uploadFaults = UploadFaults(
            resetAt: faults.resetAtUploadOffset, disconnectAt: faults.disconnectAtUploadOffset, refusesUploads: faults.refusesImageUploads)
        core.busyFaults = BusyFaults(remaining: faults.busyImageRequests, commands: faults.busyImageCommands)
    }

    /// Changes the link model.
    public func setLink(_ link: LinkConfiguration) {
        self.link = link
    }

    /// Changes the faults; re-seeds the generator and re-arms the upload-offset and busy faults.
    public func setFaults(_ faults: FaultConfiguration) {
        self.faults = faults
        random = SeededRandom(seed: faults.seed)
        core.uploadFaults = UploadFaults(
            resetAt: faults.resetAtUploadOffset, disconnectAt: faults.disconnectAtUploadOffset, refusesUploads: faults.refusesImageUploads)
        core.busyFaults = BusyFaults(remaining: faults.busyImageRequests, commands: faults.busyImageCommands)
    }

    /// Registers a transport that feeds the device; `disconnect` takes its link down for a while.
    public func registerTransport(
        name: String, disconnectsOnReset: Bool = false,
        disconnect: @escaping @Sendable (Duration) async -> Void = { _ in }
    ) -> TransportID {
        let id = (transports.keys.max() ?? 0) + 1
        transports[id] = TransportHooks(name: name, disconnect: disconnect, disconnectsOnReset: disconnectsOnReset)
        return TransportID(rawValue: id)
    }

    /// Stops serving every loopback link started by ``serve(_:disconnectsOnReset:)``.
    public func stopServing() {
        for task in servingTasks { task.cancel() }
        servingTasks = []
    }
}
