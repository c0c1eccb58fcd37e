import ArgumentParser
import Hex
import McuMgr
import McuMgrConformance
import McuMgrConnection
import McuMgrTools

extension MCUmgr {
    /// `mcumgr conformance [--allow-writes] [--allow-reset] [--image FILE] …`: checks a device's SMP
    /// server against what the protocol and the major clients expect.
    struct Conformance: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "conformance", abstract: "Check a device's SMP server against what the protocol and the major clients expect.",
            discussion: """
                Runs a battery of checks (framing, CBOR, OS, image, file system, settings, transport) over the \
                connection and prints, for each, what is expected, what the device did, and the verdict; -v adds the \
                packets in hex. By default only reads and writes that change nothing run; --allow-writes adds uploads, \
                erases and settings and file writes (each undone), --allow-reset resets and reconnects. The swap and \
                revert checks need --image, an image the device boots; the file and settings round trips need \
                --fs-path and --settings-key. 'mcumgr conformance --list' lists the checks; docs/cli.md explains each. \
                Exit status: 0 every required check passed, 1 a required check failed, 3 the device stopped answering.
                """)

        @Flag(name: .customLong("allow-writes"), help: "Also run the checks that upload, erase or write settings and files (each restores what it changed).")
        var allowWrites = false

        @Flag(name: .customLong("allow-reset"), help: "Also run the checks that reset the device and reconnect.")
        var allowReset = false

        @Option(name: .customLong("image"), help: ArgumentHelp(
            "An MCUboot image the device boots (its own firmware): the swap and revert checks reset into it.", valueName: "file"))
        var image: String?

        @Option(name: .customLong("fs-path"), help: ArgumentHelp(
            "An existing file the file-system checks may overwrite; its contents are written back.", valueName: "path"))
        var filePath: String?

        @Option(name: .customLong("settings-key"), help: ArgumentHelp(
            "A settings key the settings round trip may write; its value is restored (or the key deleted).", valueName: "key"))
        var settingsKey: String?

        @Option(name: .customLong("boot-timeout"), help: ArgumentHelp(
            "Seconds a reset device may take to answer again (default 60; \(Self.bootTimeoutOption.range)).", valueName: "seconds"),
            transform: { try Self.bootTimeoutOption.parse($0) })
        var bootTimeout: Duration = .seconds(60)

        /// `--boot-timeout`: more than 0 and at most an hour.
        static let bootTimeoutOption = DurationOption.seconds(maximum: 3_600, allowsZero: false)

        @Option(name: .customLong("only"), help: ArgumentHelp(
            "Run only this check or family, e.g. framing or os.echo-read (repeatable).", valueName: "name"))
        var only: [String] = []

        @Flag(name: .customLong("list"), help: "List the checks and exit.")
        var list = false

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            let names = Set(ConformanceCheck.all.map(\.id) + ConformanceFamily.allCases.map(\.rawValue))
            if let unknown = only.first(where: { !names.contains($0) }) {
                throw ValidationError("--only \(unknown): no such check or family (see 'mcumgr conformance --list')")
            }
        }

        func run() async throws {
            if list {
                Console.out(ConformanceCheck.listText())
                return
            }
            var options = ConformanceOptions()
            options.allowsWrites = allowWrites
            options.allowsReset = allowReset
            options.bootableImage = try image.map { path throws(InputFileError) in try InputFile.mcubootImage(path).bytes }
            options.filePath = filePath
            options.settingsKey = settingsKey
            let session = global.session
            options.timeout = session.timeout
            options.retries = session.retries
            options.bootTimeout = bootTimeout
            options.only = only
            options.keepsEvidence = global.verbose
            let (spec, named) = try global.connection()
            options.linkDelimitsByLength = Self.delimitsByLength(spec)
            if !named { Console.err("mcumgr: no connection named: checking the built-in simulated device (--sim)") }
            let transport = try await ConnectionFactory.mcumgr.makeTransport(spec, options: global.connectionOptions)
            let runner = ConformanceRunner(options: options)
            let names = runner.checks.map(\.id)
            let report = await runner.run(over: transport) { result in
                let number = (names.firstIndex(of: result.id) ?? 0) + 1
                Console.err("[\(number)/\(names.count)] \(result.id): \(result.verdict)")
            }
            if global.json {
                Output.printDocument(try JSONOutput.encode(report))
            } else {
                Console.out(report.text(verbose: global.verbose))
            }
            switch report.exitStatus {
            case .success: return
            case .transport: throw CommandFailure(.transport, report.stopped.map { "stopped at \($0.check): \($0.reason)" } ?? "the device stopped answering")
            case let status: throw CommandFailure(status, "required checks failed: \(report.requiredFailures.map(\.id).joined(separator: ", "))")
            }
        }

        /// Whether the link finds a packet's end by its SMP length field: BLE, and raw serial.
        static func delimitsByLength(_ spec: ConnectionSpec) -> Bool {
            switch spec {
            case .ble: return true
            case .serial(let parameters): return parameters.raw
            case .udp, .simulator: return false
            }
        }
    }
}
