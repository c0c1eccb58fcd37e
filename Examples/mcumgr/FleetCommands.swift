import ArgumentParser
import Hex
import Logging
import McuMgrFleet
import McuMgrConnection
import McuMgrTools
import SMP

extension MCUmgr {
    /// `mcumgr fleet`: many devices at once.
    struct Fleet: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fleet",
            abstract: "Upgrade or list many devices at once.",
            discussion: """
                Name the devices with --devices FILE (one per line: udp:HOST[:PORT], TYPE:CONNSTRING in Go mcumgr's \
                syntax, type=… connstring=…, or profile=NAME, each optionally followed by a name; # starts a comment) \
                or --udp-range FIRST-LAST[:PORT] (consecutive IPv4 addresses) or HOST:PORT-PORT (consecutive ports).
                """,
            subcommands: [FleetUpgradeCommand.self, FleetListCommand.self])
    }
}

/// The options every fleet command takes: which devices, how many at once, and session timing.
struct FleetOptions: ParsableArguments {
    @Option(name: .customLong("devices"), help: ArgumentHelp("A devices file: one device per line.", valueName: "file"))
    var devicesFile: String?

    @Option(name: .customLong("udp-range"), help: ArgumentHelp(
        "Devices at consecutive UDP addresses, FIRST-LAST[:PORT] (e.g. 127.0.0.2-127.0.0.65), or ports, HOST:PORT-PORT.",
        valueName: "range"))
    var udpRange: String?

    @Option(name: .customLong("concurrency"), help: "Most devices at once (default \(FleetOptions.defaultConcurrency); one per Bluetooth adapter and serial port).")
    var concurrency: Int?

    /// Devices at once without `--concurrency`: a session costs ~15 KB while it runs, so a list of
    /// 100 000 UDP devices must not start them all at once (issue 33: `fleet list` of 20 000
    /// unreachable devices peaked at 313 MB all at once, 77 MB 1024 at a time).
    static let defaultConcurrency = 1024

    @Option(name: [.customShort("t"), .customLong("timeout")], help: ArgumentHelp(
        "Seconds to wait for each response (default 5; upload chunks 2; \(GlobalOptions.timeoutOption.range)).", valueName: "seconds"),
        transform: { try GlobalOptions.timeoutOption.parse($0) })
    var timeout: Duration?

    @Option(name: .customLong("mtu"), help: ArgumentHelp("Largest SMP packet to send, in bytes (UDP default 1472).", valueName: "bytes"))
    var mtu: Int?

    @Flag(name: .customLong("json"), help: "Print the result as JSON (progress goes to standard error).")
    var json = false

    func validate() throws {
        guard (devicesFile == nil) != (udpRange == nil) else { throw ValidationError("name the devices with --devices FILE or --udp-range RANGE (one of them)") }
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        try GlobalOptions.checkMTU(mtu)
    }

    /// The devices the options name.
    func devices() throws -> [FleetDevice] {
        do {
            if let devicesFile { return try FleetDeviceList.load(path: devicesFile) }
            return try FleetDeviceList.udpRange(udpRange ?? "")
        } catch {
            if case .unreadable = error { throw CommandFailure(.input, error.description) }
            throw CommandFailure(.usage, error.description)
        }
    }

    /// The concurrency the options ask for.
    var fleetConcurrency: FleetConcurrency { FleetConcurrency(limit: concurrency ?? Self.defaultConcurrency) }

    /// How every device is reached: `mcumgr`'s transports (the built-in simulator too) with the options' timing.
    var connector: FleetConnector {
        FleetConnector(factory: .mcumgr, options: ConnectionOptions(
            maximumPacketSize: mtu,
            clientConfiguration: SMPClient.Configuration(timeout: timeout ?? .seconds(5), retries: 2),
            logger: Logger(label: "smp")))
    }

    /// The output these options ask for.
    var output: Output { Output(json: json) }
}
