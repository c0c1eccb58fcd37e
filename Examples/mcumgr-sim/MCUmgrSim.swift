import ArgumentParser
import Hex
import Logging
import SMP
import SMPSerial
import SMPSimulator
import SMPUDP

/// `mcumgr-sim`: a simulated Zephyr device with MCUboot that any SMP client can reach over UDP,
/// a serial line (a pseudo-terminal), or Bluetooth LE (as a peripheral on an HCI controller).
@main
struct MCUmgrSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcumgr-sim",
        abstract: "Run a simulated Zephyr/MCUboot device that answers SMP (mcumgr) over UDP, a serial line or Bluetooth LE.",
        discussion: """
            The device starts with a running, confirmed MCUboot image in slot 0 of each image and \
            empty secondary slots, and an empty file system mounted at /lfs1 (files are /lfs1/NAME, as \
            on a Zephyr littlefs build; a path elsewhere is answered FS_MGMT_ERR_MOUNT_POINT_NOT_FOUND). It prints "listening on HOST:PORT" once bound ("serial: PATH" \
            for --serial, "advertising as ADDRESS …" for --hci), logs one line per request on \
            standard error, and stops on SIGINT or SIGTERM (exit status 0).
            """,
        version: SwiftMcuMgr.version)

    /// Runs the command with a bare `--serial` turned into `--serial-pty` (a new pty).
    static func main() async {
        // One thread for the sockets and the devices (serial and BLE block on threads of their
        // own): a request then reaches its device and its answer the socket without crossing
        // threads, and the link model's latency is a timer of that same event loop (the device
        // clock is `.singletonEventLoop`, not a Dispatch timer on another thread).
        UDPTransport.runConcurrencyOnOneEventLoopThread()
        await main(SerialArgument.rewrite(Array(CommandLine.arguments.dropFirst())))
    }

    @Option(
        name: .customLong("udp"), help: "Address to serve, HOST:PORT or [IPv6]:PORT (repeatable; default: 127.0.0.1:1337 unless --serial is given).",
        transform: { text in
            guard let endpoint = UDPEndpoint(text) else { throw ValidationError("--udp expects HOST:PORT or [IPv6]:PORT") }
            return endpoint
        })
    var endpoints: [UDPEndpoint] = []

    @Option(
        name: .customLong("serial"),
        help: ArgumentHelp(
            "Serve over a serial line: alone, a new pseudo-terminal whose path is printed as 'serial: PATH'; with PATH, that tty.",
            valueName: "path"))
    var serialPath: String?

    @Flag(name: .customLong(SerialArgument.newPseudoTerminalFlag), help: .hidden)
    var serialPseudoTerminal = false

    /// Serving a serial line: nil for none, "" for a new pty, else the tty's path.
    var serial: String? { serialPath ?? (serialPseudoTerminal ? "" : nil) }

    @Option(name: .customLong("baud"), help: "Model a UART of this baud rate on --serial (baud/10 bytes/s each way; default: no limit).")
    var baud: Int?

    @Option(name: .customLong("line-length"), help: "Longest console frame the device sends on --serial, marker and newline included.")
    var lineLength = ConsoleFrameEncoder.defaultLineLength

    @Flag(name: .customLong("raw"), help: "Raw SMP packets on --serial (MCUMGR_TRANSPORT_RAW_UART) instead of console framing.")
    var raw = false

    @Flag(name: .customLong("console-noise"), help: "Mix Zephyr-style log lines between the frames the device sends on --serial.")
    var consoleNoise = false

    @Option(name: .customLong("buf-count"), help: "SMP buffers (buf_count): requests held at once.", transform: size("--buf-count"))
    var bufferCount = 4

    @Option(name: .customLong("buf-size"), help: "Bytes per SMP buffer (buf_size), header included.", transform: size("--buf-size"))
    var bufferSize = 2048

    @Option(name: .customLong("report-buf-size"), help: .hidden, transform: size("--report-buf-size"))
    var reportedBufferSize: Int?

    @Option(name: .customLong("report-buf-count"), help: .hidden, transform: size("--report-buf-count"))
    var reportedBufferCount: Int?

    @Option(name: .customLong("overflow"), help: "A request beyond buf-count is 'drop'ped or answered 'nomem' (rc 2).")
    var overflow: OverflowChoice = .nomem

    @Option(
        name: .customLong("latency"),
        help: "Milliseconds from when the device takes a request up to its answer (the simulator's own computing hides in it; default 0; \(millisecondsOption.range)).",
        transform: { try millisecondsOption.parse($0) })
    var latency: Duration = .zero

    @Option(name: .customLong("bandwidth"), help: "Link throughput in bytes per second (default unlimited).")
    var bandwidth: Int?

    @Option(name: .customLong("flash-ns-per-byte"), help: "Nanoseconds flash takes to write one byte.")
    var flashNanosecondsPerByte: Int = 0

    @Option(
        name: .customLong("timer-spin"),
        help: ArgumentHelp(
            "Microseconds before each link-model deadline (latency, wire and air time) to stop sleeping and keep the event loop turning, so the model's times hold on a machine that wakes late from idle (a VM wakes 0.2–0.5 ms late). Costs CPU while answers wait.",
            valueName: "us"))
    var timerSpin: Int = 0

    @Option(name: .customLong("drop"), help: "Percent of packets dropped (both directions).")
    var drop: Double = 0

    @Option(name: .customLong("duplicate"), help: "Percent of packets delivered twice.")
    var duplicate: Double = 0

    @Option(name: .customLong("reorder"), help: "Percent of packets held back behind the next one.")
    var reorder: Double = 0

    @Option(name: .customLong("delay"), help: "Percent of packets delayed by --delay-ms.")
    var delay: Double = 0

    @Option(
        name: .customLong("delay-ms"),
        help: "Milliseconds of extra delay of a delayed packet, and longest hold of a reordered one (default 100; \(millisecondsOption.range)).",
        transform: { try millisecondsOption.parse($0) })
    var delayMilliseconds: Duration = .milliseconds(100)

    @Option(name: .customLong("fault-direction"), help: "Packets the fault percentages apply to: requests, responses or both.")
    var faultDirection: FaultDirectionChoice = .both

    @Option(name: .customLong("seed"), help: "Seed of the fault generator.")
    var seed: UInt64 = 1

    @Option(name: .customLong("reset-at"), help: "Reset the device (no answer) at the first upload chunk at or past this offset, once.")
    var resetAt: Int?

    @Option(name: .customLong("disconnect-at"), help: "Go silent (link down) at the first upload chunk at or past this offset, once.")
    var disconnectAt: Int?

    @Option(
        name: .customLong("reconnect-delay"),
        help: "Milliseconds the link stays down after --disconnect-at (default 500; \(millisecondsOption.range)).",
        transform: { try millisecondsOption.parse($0) })
    var reconnectDelay: Duration = .milliseconds(500)

    @Option(name: .customLong("images"), help: "Updatable images, each with two slots.")
    var images = 2

    @Option(name: .customLong("slot-size"), help: "Bytes per image slot, e.g. 524288 or 0x80000.", transform: size("--slot-size"))
    var slotSize = 0x80000

    @Option(
        name: .customLong("image-version"), help: "Version of the running images, e.g. 1.0.0 or 1.0.0+3 (default: 1.0.0).",
        transform: { text in
            guard let version = ImageVersion(text) else { throw ValidationError("--image-version must look like 1.2.3 or 1.2.3+4") }
            return version
        })
    var imageVersion = ImageVersion(1, 0, 0)

    @Option(name: .customLong("image-size"), help: "Payload bytes of the running images.", transform: size("--image-size"))
    var imageSize = 65_536

    @Option(name: .customLong("fs-capacity"), help: "Bytes of file contents the file system (mounted at /lfs1) holds.", transform: size("--fs-capacity"))
    var fileSystemCapacity = DeviceConfiguration().fileSystemCapacity

    @Option(name: .customLong("fs-files"), help: "Files the file system holds.", transform: size("--fs-files"))
    var fileSystemFiles = DeviceConfiguration().fileSystemMaximumFiles

    @Option(name: .customLong("settings-entries"), help: "Settings the device keeps.", transform: size("--settings-entries"))
    var settingsEntries = DeviceConfiguration().settingsMaximumEntries

    @Option(name: .customLong("settings-bytes"), help: "Bytes of settings names and values the device keeps.", transform: size("--settings-bytes"))
    var settingsBytes = DeviceConfiguration().settingsMaximumBytes

    @Option(
        name: .customLong("boot-time"), help: "Milliseconds the device needs to boot after a reset (default 300; \(millisecondsOption.range)).",
        transform: { try millisecondsOption.parse($0) })
    var bootTime: Duration = .milliseconds(300)

    @Option(
        name: .customLong("reset-delay"), help: "Milliseconds from the reset response to the reboot (default 250; \(millisecondsOption.range)).",
        transform: { try millisecondsOption.parse($0) })
    var resetDelay: Duration = .milliseconds(250)

    @Option(
        name: .customLong("mode"),
        help: ArgumentHelp(
            "MCUboot mode, by name or number: what bootloader info reports and how the slots behave.",
            discussion: "One of \(MCUbootMode.allCases.map(\.description).joined(separator: ", "))."))
    var mode: MCUbootMode = .swapUsingMove

    @Flag(name: .customLong("allow-erase-pending"), help: "Allow erasing or uploading over a slot marked for the next boot.")
    var allowErasePending = false

    @Option(name: .customLong("busy"), help: "Answer this many image state/upload/erase requests with busy (rc 10) first.")
    var busy = 0

    @Option(
        name: .customLong("secondary"),
        help: "Start with another image in slot 1 of image 0: plain, test, permanent or confirmed (the running image then on test).")
    var secondary: SecondaryChoice?

    @Option(
        name: .customLong("secondary-version"), help: "Version of the --secondary image (default: 1.5.0).",
        transform: { text in
            guard let version = ImageVersion(text) else { throw ValidationError("--secondary-version must look like 1.2.3 or 1.2.3+4") }
            return version
        })
    var secondaryVersion = ImageVersion(1, 5, 0)

    @Flag(name: .customLong("indefinite-maps"), help: "Encode responses with indefinite-length maps, as a default Zephyr build does.")
    var indefiniteMaps = false

    @Flag(name: .customLong("no-downgrade"), help: "MCUboot refuses to boot an older image (reported by bootloader info).")
    var noDowngrade = false

    @Flag(name: .customLong("keep-upload-state"), help: "Keep the image upload state across resets (Zephyr loses it).")
    var keepUploadState = false

    @Flag(name: .customLong("no-smp-v1"), help: "Refuse SMP v1 requests (rc 12).")
    var noSMPv1 = false

    @Flag(name: .customLong("clock-set"), help: "Start with the clock set instead of answering RTC_NOT_SET.")
    var clockSet = false

    @Flag(name: .customLong("suit"), help: "A SUIT device (nRF54H20): the SUIT group (66) with manifest roles 0x20, 0x21 and 0x22.")
    var suit = false

    @Option(name: .customLong("suit-hostile"), help: .hidden)
    var suitHostility: String?

    @Option(
        name: .customLong("quirk"),
        help: ArgumentHelp(
            "Break one rule of the protocol, to see a conformance checker catch it (repeatable).",
            discussion: SimulatorQuirk.allCases.map { "\($0): breaks \"\($0.rule)\"" }.joined(separator: "; ") + ".",
            valueName: "name"))
    var quirks: [SimulatorQuirk] = []

    @Flag(name: .customLong("quiet"), help: "Do not log each request.")
    var quiet = false

    @Flag(name: .customLong("exit-on-eof"), help: "Also stop when standard input closes (for a parent process that may die).")
    var exitOnEndOfInput = false

    @Option(name: .customLong("devices"), help: ArgumentHelp(
        "Serve this many independent devices, on consecutive addresses from --udp's (127.0.0.2, .3, …), each with its own state.",
        valueName: "n"))
    var deviceCount: Int?

    @Flag(name: .customLong("consecutive-ports"), help: "With --devices: consecutive ports of --udp's host instead of consecutive addresses.")
    var consecutivePorts = false

    @Option(name: .customLong("faulty"), help: ArgumentHelp(
        "With --devices: give this many devices, chosen by --seed, a fault in turn: drop, reset, busy, refuse.", valueName: "k"))
    var faulty = 0

    @Option(name: .customLong("device-fault"), help: ArgumentHelp(
        "With --devices: give device N (0 for the first) a fault: drop, reset, busy, refuse or no-return (repeatable).",
        valueName: "n=fault"))
    var deviceFaults: [String] = []

    @OptionGroup var peripheral: PeripheralOptions

    @OptionGroup var slotDump: SlotDumpOptions

    func validate() throws {
        guard (1...65_535).contains(bufferCount), (64...65_543).contains(bufferSize) else {
            throw ValidationError("--buf-count must be 1 to 65535 and --buf-size 64 to 65543 bytes")
        }
        for (name, value) in [("--fs-capacity", fileSystemCapacity), ("--fs-files", fileSystemFiles),
                              ("--settings-entries", settingsEntries), ("--settings-bytes", settingsBytes)] where value < 0 {
            throw ValidationError("\(name) must be 0 or more")
        }
        guard (0...0x7fff_ffff).contains(imageSize) else { throw ValidationError("--image-size must be 0 to 0x7fffffff bytes") }
        // The running image (header, payload, hash TLV) must fit its slot, with room for MCUboot's trailer.
        let runningImage = 0x200 + imageSize + 40
        guard slotSize > runningImage + 4096 else {
            throw ValidationError("--slot-size \(slotSize) cannot hold the running image of \(runningImage) bytes and MCUboot's trailer (at least \(runningImage + 4097))")
        }
        if serial == nil, baud != nil || raw || consoleNoise || lineLength != ConsoleFrameEncoder.defaultLineLength {
            throw ValidationError("--baud, --line-length, --raw and --console-noise apply to --serial")
        }
        if let baud, baud <= 0 { throw ValidationError("--baud must be positive") }
        guard (7...ConsoleFrameEncoder.maximumLineLength).contains(lineLength) else {
            throw ValidationError("--line-length must be 7 to \(ConsoleFrameEncoder.maximumLineLength)")
        }
        if raw && consoleNoise { throw ValidationError("--console-noise needs console framing: raw packets cannot share the line with log text") }
        guard (1...8).contains(images) else { throw ValidationError("--images must be 1 to 8") }
        guard busy >= 0 else { throw ValidationError("--busy must be 0 or more") }
        guard (0...1_000_000).contains(timerSpin) else { throw ValidationError("--timer-spin must be 0 to 1000000 microseconds") }
        if secondary != nil, mode.slotsPerImage < 2 {
            throw ValidationError("--secondary needs a mode with two slots per image, not \(mode)")
        }
        for percent in [drop, duplicate, reorder, delay] where !(0...100).contains(percent) {
            throw ValidationError("fault percentages must be between 0 and 100")
        }
        if let suitHostility {
            guard suit else { throw ValidationError("--suit-hostile applies to --suit") }
            guard SUITDeviceConfiguration.Hostility(rawValue: suitHostility) != nil else {
                throw ValidationError("--suit-hostile must be one of \(SUITDeviceConfiguration.Hostility.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
        try validateFleet()
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = quiet ? .notice : .debug
            return handler
        }
        if let deviceCount { return try await serveFleet(count: deviceCount) }
        let device = SimulatedDevice(
            configuration: deviceConfiguration(), link: linkConfiguration(), faults: faultConfiguration(),
            clock: deviceClock, logger: Logger(label: "mcumgr-sim"))
        await device.installRunningImages(version: imageVersion, payloadSize: imageSize)
        if let secondary {
            let bytes = MCUbootImageMaker.make(version: secondaryVersion, payloadSize: imageSize, seed: 0x5ec0_0d)
            await device.install(bytes, image: 0, slot: 1, mark: secondary.mark)
        }
        var servers: [SimulatorUDPServer] = []
        let endpoints = endpoints.isEmpty && serial == nil && peripheral.hci == nil
            ? [UDPEndpoint(host: "127.0.0.1", port: UDPTransport.defaultPort)] : endpoints
        for endpoint in endpoints {
            do {
                let server = try await SimulatorUDPServer.start(device: device, host: endpoint.host, port: endpoint.port)
                servers.append(server)
                Console.write("listening on \(UDPEndpoint(host: endpoint.host, port: server.port))", to: 1)
            } catch {
                for server in servers { await server.close() }
                throw BindError(endpoint: endpoint, underlying: "\(error)")
            }
        }
        var serialServer: SimulatorSerialServer?
        if let serial {
            do {
                let options = SimulatorSerialServer.Options(
                    framing: raw ? .raw : .console, lineLength: lineLength, baudRate: baud, consoleNoise: consoleNoise)
                let server = try await SimulatorSerialServer.start(device: device, path: serial.isEmpty ? nil : serial, options: options)
                serialServer = server
                Console.write("serial: \(server.path)", to: 1)
            } catch {
                for server in servers { await server.close() }
                throw SerialServeError(path: serial.isEmpty ? "a new pseudo-terminal" : serial, underlying: "\(error)")
            }
        }
        let blePeripheral: SimulatorHCIPeripheral?
        do {
            blePeripheral = try await peripheral.serve(device, clock: deviceClock)
        } catch {
            for server in servers { await server.close() }
            await serialServer?.close()
            throw error
        }
        let reason = await StopWaiter.wait(watchesStandardInput: exitOnEndOfInput)
        Console.write("mcumgr-sim: \(reason), stopping", to: 2)
        for server in servers { await server.close() }
        await serialServer?.close()
        await blePeripheral?.close()
        await slotDump.dump(device)
    }

    /// The devices' time: timers of the one event loop, spinning for `--timer-spin` before each deadline.
    var deviceClock: SMPClock { .singletonEventLoop(spin: .microseconds(timerSpin)) }

    func deviceConfiguration() -> DeviceConfiguration {
        var c = DeviceConfiguration()
        c.bufferSize = bufferSize
        c.bufferCount = bufferCount
        c.imageCount = images
        c.slotSize = slotSize
        c.fileSystemCapacity = fileSystemCapacity
        c.fileSystemMaximumFiles = fileSystemFiles
        c.settingsMaximumEntries = settingsEntries
        c.settingsMaximumBytes = settingsBytes
        c.reportedBufferSize = reportedBufferSize
        c.reportedBufferCount = reportedBufferCount
        c.usesIndefiniteLengthMaps = indefiniteMaps
        c.preventsDowngrade = noDowngrade
        c.keepsUploadStateAcrossReset = keepUploadState
        c.supportsSMPv1 = !noSMPv1
        c.clockStartsSet = clockSet
        c.quirks = Set(quirks)
        c.bootloaderMode = mode
        c.allowsErasingPendingSlots = allowErasePending
        if suit {
            var configuration = SUITDeviceConfiguration()
            configuration.hostility = suitHostility.flatMap(SUITDeviceConfiguration.Hostility.init(rawValue:))
            c.suit = configuration
        }
        c.bootDuration = bootTime
        c.resetDelay = resetDelay
        return c
    }

    func linkConfiguration() -> LinkConfiguration {
        LinkConfiguration(
            latency: latency, bandwidth: bandwidth,
            flashWriteTimePerByte: .nanoseconds(flashNanosecondsPerByte),
            bufferOverflow: overflow.policy)
    }

    func faultConfiguration() -> FaultConfiguration {
        var f = FaultConfiguration()
        f.seed = seed
        f.dropPercent = drop
        f.duplicatePercent = duplicate
        f.reorderPercent = reorder
        f.delayPercent = delay
        f.delay = delayMilliseconds
        f.directions = faultDirection.directions
        f.resetAtUploadOffset = resetAt
        f.disconnectAtUploadOffset = disconnectAt
        f.reconnectDelay = reconnectDelay
        f.busyImageRequests = busy
        return f
    }
}

/// The simulator's durations (`--latency`, `--delay-ms`, `--reconnect-delay`, `--boot-time`,
/// `--reset-delay`): milliseconds, 0 to an hour.
let millisecondsOption = DurationOption.milliseconds(maximum: 3_600_000)

/// Reads a size or count option in decimal or `0x` hexadecimal, naming the option when it is neither.
func size(_ option: String) -> @Sendable (String) throws -> Int {
    { text in
        guard let value = Int(decimalOrHex: text) else {
            throw ValidationError("\(option) expects a number, in decimal or 0x hexadecimal (e.g. 524288 or 0x80000), not '\(text)'")
        }
        return value
    }
}

/// The values of `--overflow`.
enum OverflowChoice: String, ExpressibleByArgument, CaseIterable {
    case drop, nomem

    var policy: BufferOverflowPolicy { self == .drop ? .drop : .answerNoMemory }
}

/// The values of `--fault-direction`.
enum FaultDirectionChoice: String, ExpressibleByArgument, CaseIterable {
    case requests, responses, both

    var directions: FaultDirections {
        switch self {
        case .requests: return .requests
        case .responses: return .responses
        case .both: return .both
        }
    }
}

/// The simulator could not serve the serial line.
struct SerialServeError: Error, CustomStringConvertible {
    let path: String
    let underlying: String

    var description: String { "cannot serve \(path): \(underlying)" }
}

/// The simulator could not bind one of its addresses.
struct BindError: Error, CustomStringConvertible {
    let endpoint: UDPEndpoint
    let underlying: String

    var description: String { "cannot bind \(endpoint): \(underlying)" }
}

extension MCUbootMode: ExpressibleByArgument {
    /// Reads `--mode` as a name (`swap-move`, `direct-xip-revert`, …) or a number.
    public init?(argument: String) {
        self.init(name: argument)
    }

    /// The names `--help` lists.
    public static var allValueStrings: [String] { allCases.map(\.name) }
}

extension SimulatorQuirk: ExpressibleByArgument {
    /// Reads `--quirk` by its name (`wrong-seq`, `no-enomem`, …).
    public init?(argument: String) {
        self.init(rawValue: argument)
    }

    /// The names `--help` lists.
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// The values of `--secondary`.
enum SecondaryChoice: String, ExpressibleByArgument, CaseIterable {
    case plain, test, permanent, confirmed

    var mark: SlotMark {
        switch self {
        case .plain: return .none
        case .test: return .test
        case .permanent: return .permanent
        case .confirmed: return .confirmed
        }
    }
}
