import McuMgrConformance
import SMP
import SMPSimulator
import SMPTestSupport
import Synchronization

/// A simulated device on an in-memory link, what the tests compare before and after a run, and a
/// conformance run against it, in the current test's time (virtual under `.virtualTime`).
struct ConformanceFixture {
    let device: SimulatedDevice
    let transport: any SMPTransport
    let clock: SMPClock

    /// The scratch file and settings key the runs may use.
    static let filePath = "/lfs1/conformance.bin"
    static let settingsKey = "app/conformance"
    static let fileContents: [UInt8] = (0..<777).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    /// A device built as `configuration` says (small slots, fast boots), running version 1.0.0,
    /// with the scratch file and one unrelated setting.
    static func make(
        configuration: DeviceConfiguration = .conformance, link: LinkConfiguration = LinkConfiguration(),
        faults: FaultConfiguration = FaultConfiguration(), wrap: (LoopbackTransport) -> any SMPTransport = { $0 }
    ) async -> ConformanceFixture {
        let clock = VirtualRuntime.currentClock
        let device = SimulatedDevice(configuration: configuration, link: link, faults: faults, clock: clock)
        await device.installRunningImages(version: ImageVersion(1, 0, 0), payloadSize: 3000)
        await device.writeFile(at: filePath, contents: fileContents)
        // Room for a request one byte over buf_size.
        let loopback = await device.makeLoopbackTransport(maximumPacketSize: 65_535)
        return ConformanceFixture(device: device, transport: wrap(loopback), clock: clock)
    }

    /// What a run must leave as it found it: the image table, the files, the settings.
    struct Snapshot: Equatable {
        let slots: [SlotState]
        let file: [UInt8]?
        let files: Int
        let settings: Int
        let setting: [UInt8]?
    }

    func snapshot() async -> Snapshot {
        Snapshot(
            slots: await device.slotStates(), file: await device.file(at: Self.filePath), files: await device.fileSystemUsage.files,
            settings: await device.settingsUsage.entries, setting: await device.setting(named: Self.settingsKey))
    }

    /// Every option on: writes, resets, a bootable image, the scratch file and key.
    static var allOptions: ConformanceOptions {
        var options = ConformanceOptions()
        options.allowsWrites = true
        options.allowsReset = true
        options.bootableImage = MCUbootImageMaker.make(version: ImageVersion(2, 0, 0), payloadSize: 6000, seed: 7)
        options.filePath = filePath
        options.settingsKey = settingsKey
        options.timeout = .seconds(1)
        options.retries = 2
        options.bootTimeout = .seconds(10)
        return options
    }

    /// Runs the checks with `options` and closes the link.
    func run(_ options: ConformanceOptions = Self.allOptions) async -> ConformanceReport {
        let report = await ConformanceRunner(options: options).run(over: transport, clock: clock)
        await device.stopServing()
        return report
    }
}

extension DeviceConfiguration {
    /// Small slots and quick reboots for the conformance runs.
    static var conformance: DeviceConfiguration {
        var c = DeviceConfiguration()
        c.slotSize = 0x20000
        // Longer than the latency of the links the tests give: the reset answer leaves before the reboot.
        c.resetDelay = .milliseconds(100)
        c.bootDuration = .milliseconds(50)
        c.wedgeDuration = .milliseconds(1500)
        return c
    }
}

extension ConformanceReport {
    /// The names of the checks with `status`.
    func ids(_ status: ConformanceStatus) -> Set<String> {
        Set(results.filter { $0.status == status }.map(\.id))
    }

    /// The result of check `id`.
    func result(_ id: String) -> ConformanceResult? {
        results.first { $0.id == id }
    }
}
