import ArgumentParser
import Hex
import Logging
import McuMgrConnection
import McuMgrTools
import SMPBLE

extension BLEAddressType: ExpressibleByArgument {}
extension BLESecurity: ExpressibleByArgument {}

/// The options every command takes, before or after the subcommand (as with Apache's Go
/// `mcumgr`): how to reach the device, how long to wait, and how to print.
struct GlobalOptions: ParsableArguments {
    @Option(name: .customLong("udp"), help: ArgumentHelp(
        "Reach the device over UDP (IPv6 as [::1]:1337; the default port is 1337).", valueName: "host[:port]"))
    var udp: String?

    @Option(name: .customLong("ble"), help: ArgumentHelp(
        "Reach the device over Bluetooth LE by address or advertised name: through bluetoothd (D-Bus) when it runs, else the kernel's socket (with --hci: through our own LE host).",
        valueName: "address"))
    var ble: String?

    @Option(name: .customLong("bluez"), help: ArgumentHelp(
        "Reach the device over Bluetooth LE through bluetoothd's D-Bus API only (no root needed), by address or advertised name.",
        valueName: "address"))
    var bluez: String?

    @Option(name: .customLong("ble-socket"), help: ArgumentHelp(
        "Reach the device over Bluetooth LE through the kernel's L2CAP socket only (bluetoothd or not), by address or advertised name.",
        valueName: "address"))
    var bleSocket: String?

    @Flag(name: .customLong("bluez-no-acquire"), help: ArgumentHelp(
        "Through bluetoothd (--bluez, or --ble while it runs): write with WriteValue and take notifications through StartNotify instead of the AcquireWrite/AcquireNotify descriptors (slower; for a bluetoothd or device where acquiring fails)."))
    var bluezNoAcquire = false

    @Flag(name: .customLong("ble-scan"), help: "Use the first SMP device a Bluetooth LE scan finds; alone, list the SMP devices found.")
    var bleScan = false

    @Option(name: .customLong("ble-type"), help: ArgumentHelp(
        "The --ble address's type, public or random (without it, a scan finds the device and its type).", valueName: "type"))
    var bleType: BLEAddressType?

    @Option(name: .customLong("ble-adapter"), help: ArgumentHelp("The local Bluetooth adapter, by name (hci0) or address.", valueName: "adapter"))
    var bleAdapter: String?

    @Option(name: .customLong("ble-security"), help: ArgumentHelp(
        "The Bluetooth LE link's security level: low (default), medium (encrypted) or high (authenticated).", valueName: "level"))
    var bleSecurity: BLESecurity?

    @Option(name: .customLong("hci"), help: ArgumentHelp(
        "Bluetooth LE through our own LE host on this HCI controller: tcp:HOST:PORT (e.g. bumble's), serial:PATH[@BAUD] or user:N (adapter down).",
        valueName: "controller"))
    var hci: String?

    @Option(name: .customLong("serial"), help: ArgumentHelp(
        "Reach the device on a serial port or pseudo-terminal (SMP console framing).", valueName: "device"))
    var serial: String?

    @Option(name: .customLong("baud"), help: ArgumentHelp("The serial line's baud rate (default 115200).", valueName: "rate"))
    var baud: Int?

    @Option(name: .customLong("line-length"), help: ArgumentHelp(
        "The longest serial console frame, marker and newline included (default 127).", valueName: "bytes"))
    var lineLength: Int?

    @Flag(name: .customLong("raw"), help: "Unframed SMP packets on the serial line (Zephyr's raw UART transport).")
    var raw = false

    @Flag(name: .customLong("sim"), help: "Use the built-in simulated device (the default when no connection is named).")
    var sim = false

    @Option(name: .customLong("conntype"), help: ArgumentHelp("Go mcumgr compatibility: the transport, udp, serial or ble.", valueName: "type"))
    var connType: String?

    @Option(name: .customLong("connstring"), help: ArgumentHelp(
        "Go mcumgr compatibility: the address for --conntype, e.g. [127.0.0.1]:1337.", valueName: "string"))
    var connString: String?

    @Option(name: [.customShort("c"), .customLong("conn")], help: ArgumentHelp(
        "Use the connection profile NAME (see 'mcumgr conn').", valueName: "name"))
    var profile: String?

    @Option(name: [.customShort("t"), .customLong("timeout")], help: ArgumentHelp(
        "Seconds to wait for each response (default 5; \(GlobalOptions.timeoutOption.range)).", valueName: "seconds"),
        transform: { try GlobalOptions.timeoutOption.parse($0) })
    var timeout: Duration?

    @Option(name: [.customShort("r"), .customLong("retries")], help: ArgumentHelp(
        "Times a request is resent after a timeout (default 2).", valueName: "n"))
    var retries: Int?

    @Option(name: .customLong("tries"), help: .hidden)
    var tries: Int?

    @Option(name: .customLong("mtu"), help: ArgumentHelp(
        "Largest SMP packet to send, in bytes (UDP default 1472).", valueName: "bytes"), transform: sizeOption("--mtu"))
    var mtu: Int?

    @Flag(name: .customLong("json"), help: "Print the result as JSON.")
    var json = false

    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Log every SMP frame's header on standard error (--log-level debug).")
    var verbose = false

    @Option(name: .customLong("log-level"), help: ArgumentHelp(
        "What to log on standard error: trace (every frame's bytes in hex too), debug (frame headers, retries; as -v), info, warning or error (default: nothing).",
        valueName: "level"), transform: { text in
            guard let level = GlobalOptions.logLevels[text.lowercased()] else {
                throw ValidationError("--log-level must be trace, debug, info, warning or error, not '\(text)'")
            }
            return level
        })
    var logLevelOption: Logger.Level?

    /// The levels `--log-level` takes, by name.
    static let logLevels: [String: Logger.Level] = ["trace": .trace, "debug": .debug, "info": .info, "warning": .warning, "error": .error]

    /// The log level asked for: `--log-level`, else debug with `-v`; nil for none (nothing is logged).
    var logLevel: Logger.Level? { logLevelOption ?? (verbose ? .debug : nil) }

    /// The default response timeout.
    static let defaultTimeout = Duration.seconds(5)
    /// `--timeout`: more than 0 and at most an hour.
    /// (The limits of `--timeout`, `--retries` and `--mtu` are those a saved profile is held to:
    /// ``ConnectionProfile``'s, one rule for both.)
    static let timeoutOption = DurationOption.seconds(maximum: ConnectionProfile.maximumTimeout, allowsZero: false)
    /// Refuses an `--mtu` outside ``ConnectionProfile/mtuRange``.
    static func checkMTU(_ mtu: Int?) throws {
        let range = ConnectionProfile.mtuRange
        if let mtu, !range.contains(mtu) { throw ValidationError("--mtu must be \(range.lowerBound) to \(range.upperBound) bytes") }
    }

    /// The default number of retries.
    static let defaultRetries = 2

    func validate() throws {
        let named = [
            udp != nil, serial != nil, ble != nil, bluez != nil, bleSocket != nil, bleScan, sim, connType != nil || connString != nil, profile != nil,
        ].filter { $0 }
        guard named.count <= 1 else {
            throw ValidationError("name one connection: --udp, --serial, --ble, --bluez, --ble-socket, --ble-scan, --sim, --conntype/--connstring or -c NAME")
        }
        if serial == nil, baud != nil || lineLength != nil || raw {
            throw ValidationError("--baud, --line-length and --raw go with --serial DEVICE")
        }
        if let serial {
            // The rules of a serial connection string or profile, so that a bad value is a usage error either way.
            do throws(ConnectionStringError) {
                try SerialConnectionParameters(device: serial, baudRate: baud, lineLength: lineLength, raw: raw).validate()
            } catch .invalidValue(let key, let value, let expected) where key == "baud" || key == "line_length" {
                throw ValidationError("--\(key == "baud" ? "baud" : "line-length") \(value) is not valid: expected \(expected)")
            } catch {
                throw ValidationError(error.description)
            }
        }
        let maximumRetries = ConnectionProfile.maximumRetries
        if let retries, !(0...maximumRetries).contains(retries) { throw ValidationError("--retries must be 0 to \(maximumRetries)") }
        if let tries, !(1...maximumRetries + 1).contains(tries) { throw ValidationError("--tries must be 1 to \(maximumRetries + 1)") }
        try Self.checkMTU(mtu)
        if let udp {
            do { _ = try ConnectionSpec(udpOption: udp) } catch { throw ValidationError(error.description) }
        }
        let blePeer = ble ?? bluez ?? bleSocket
        if blePeer == nil, !bleScan, bleType != nil || bleSecurity != nil {
            throw ValidationError("--ble-type and --ble-security go with --ble ADDRESS|NAME or --ble-scan")
        }
        if bleType != nil, blePeer.map(ConnectionSpec.isBLEAddress) != true {
            throw ValidationError("--ble-type is the type of a device address: give --ble AA:BB:CC:DD:EE:FF")
        }
        if bluez != nil, bleSecurity != nil {
            throw ValidationError("--ble-security is for the kernel's socket (--ble-socket): through bluetoothd, pair the device instead (bluetoothctl pair ADDRESS)")
        }
        if bluezNoAcquire, ble == nil && bluez == nil || hci != nil {
            throw ValidationError("--bluez-no-acquire is for the path through bluetoothd: --bluez ADDRESS|NAME (or --ble while bluetoothd runs)")
        }
        if hci != nil, bluez != nil || bleSocket != nil {
            throw ValidationError("--hci goes with --ble or --ble-scan: --bluez and --ble-socket name parts of BlueZ, --hci our own LE host")
        }
        if hci != nil, bleAdapter != nil || bleSecurity != nil {
            throw ValidationError("--ble-adapter and --ble-security are for the kernel's Bluetooth stack; --hci names the controller itself")
        }
        if let hci {
            guard ble != nil || bleScan else { throw ValidationError("--hci names a controller: add --ble ADDRESS|NAME or --ble-scan") }
            do { _ = try ConnectionSpec.hciController(option: hci) } catch { throw ValidationError(error.description) }
        }
    }

    /// The session settings in force: each from the command line, else from the profile `-c NAME`
    /// saved (the profiles file read once here), else the default. A profile that cannot be read
    /// adds nothing (`connection()` reports why).
    var session: SessionSettings {
        let saved = profile.flatMap { try? ProfileStore().profile(named: $0) }
        return SessionSettings(
            givenTimeout: timeout ?? saved?.timeout.map { .seconds($0) },
            retries: retries ?? tries.map { $0 - 1 } ?? saved?.retries ?? Self.defaultRetries,
            mtu: mtu ?? saved?.mtu)
    }

    /// The output these options ask for.
    var output: Output { Output(json: json) }
}

/// A command that reaches a device through the global options.
protocol DeviceCommand {
    /// The global options.
    var global: GlobalOptions { get }
}

/// A command's session settings once the command line and the saved profile are combined.
struct SessionSettings {
    /// The response timeout the command line or the profile gives, if either does.
    let givenTimeout: Duration?
    /// The retry count in force (2 unless given).
    let retries: Int
    /// The packet size in force; nil for the transport's default.
    let mtu: Int?

    /// The response timeout in force: the given one, else 5 s.
    var timeout: Duration { givenTimeout ?? GlobalOptions.defaultTimeout }
    /// How long the upload engine waits for each chunk's answer: the given timeout, else 2 s.
    var chunkTimeout: Duration { givenTimeout ?? .seconds(2) }
}
