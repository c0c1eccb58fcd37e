import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Hex
import McuMgr
import McuMgrFleet
import McuMgrConnection
import McuMgrTools

extension MCUmgr {
    /// `mcumgr fleet upgrade FILE… (--devices FILE | --udp-range RANGE) [--concurrency N] [--retries N]
    /// [--canary M] [--max-failures K] [--dry-run] [--json] [--report FILE]`.
    struct FleetUpgradeCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "upgrade",
            abstract: "Upgrade many devices with the same images: upload, test, reset and confirm on each.",
            discussion: """
                Devices already running the images, confirmed, are read and left alone, so running the same command \
                again only works on the devices that are not done. On a terminal a table shows every device; otherwise \
                each device prints its start, every 10 % of its upload, its retries and its end. The summary lists the \
                devices upgraded, unchanged, failed (with the state and the device's error) and not started.

                --dry-run reads every device's image table and bootloader mode and says what the upgrade would do \
                (upload, test, confirm, nothing, or refuse: a downgrade, a missing image number), with totals.

                Exit status: 0 every device ended upgraded or unchanged (dry run: none would be refused or is \
                unreadable); 1 some device failed, was refused or was not started (after a canary failed or too many \
                failures); 2 usage error (a bad devices file line included); 3 no device could be reached; 4 invalid image \
                file or unreadable devices file; 130 interrupted (Ctrl-C cancels every device and prints the report).
                """)

        @OptionGroup var upgrade: UpgradeOptions

        @OptionGroup var fleet: FleetOptions

        @Option(name: .customLong("retries"), help: "Times a device whose upgrade failed for a passing reason is tried again.")
        var retries = 0

        /// `--retry-delay`: 0 to an hour.
        static let retryDelayOption = DurationOption.seconds(maximum: 3_600)
        /// `--step-timeout`: more than 0 and at most a day.
        static let stepTimeoutOption = DurationOption.seconds(maximum: 86_400, allowsZero: false)

        @Option(
            name: .customLong("retry-delay"),
            help: "Seconds before a device's first retry; doubles for each further one (default 2; \(FleetUpgradeCommand.retryDelayOption.range)).",
            transform: { try FleetUpgradeCommand.retryDelayOption.parse($0) })
        var retryDelay: Duration = .seconds(2)

        @Option(name: .customLong("canary"), help: "Upgrade the first M devices first; start the rest only if all come back healthy.")
        var canary = 0

        @Option(name: .customLong("max-failures"), help: "Start no further device once this many have failed.")
        var maxFailures: Int?

        @Option(
            name: .customLong("step-timeout"),
            help: "Seconds each control step keeps resending to a silent or lossy device before it fails (default 120; \(FleetUpgradeCommand.stepTimeoutOption.range)).",
            transform: { try FleetUpgradeCommand.stepTimeoutOption.parse($0) })
        var stepTimeout: Duration = .seconds(120)

        @Flag(name: .customLong("dry-run"), help: "Say what the upgrade would do on each device; change nothing.")
        var dryRun = false

        @Option(name: .customLong("report"), help: ArgumentHelp("Also write the JSON report to this file.", valueName: "file"))
        var reportPath: String?

        func validate() throws {
            guard (0...100).contains(retries) else { throw ValidationError("--retries must be 0 to 100") }
            guard canary >= 0 else { throw ValidationError("--canary must be 0 or more") }
            if let maxFailures, maxFailures < 1 { throw ValidationError("--max-failures must be at least 1") }
        }

        func run() async throws {
            guard case .images(let images, _) = try self.upgrade.input() else {
                throw CommandFailure(.usage, "fleet upgrade takes MCUboot images or MCUboot packages; upgrade SUIT devices one at a time with 'mcumgr upgrade'")
            }
            let devices = try fleet.devices()
            var upgrade = self.upgrade.configuration(chunkTimeout: fleet.timeout ?? .seconds(2))
            upgrade.stepTimeout = stepTimeout
            let output = fleet.output
            if dryRun {
                let dryRun = try Self.make { () throws(FleetConfigurationError) in
                    try FleetDryRun(
                        devices: devices, images: images, upgrade: upgrade, concurrency: fleet.fleetConcurrency, connector: fleet.connector,
                        retries: retries, retryBackOff: retryDelay)
                }
                let report = await dryRun.run()
                try write(report)
                try output.emit(report) { report.text }
                guard report.exitStatus == .success else {
                    throw CommandFailure(report.exitStatus, "the upgrade would refuse or could not read \(report.entries.count - report.entries.filter { $0.problem == nil }.count) of \(report.entries.count) devices")
                }
                return
            }
            let configuration = FleetConfiguration(
                upgrade: upgrade, concurrency: fleet.fleetConcurrency, retries: retries, retryBackOff: retryDelay,
                maximumFailures: maxFailures, canaryCount: canary)
            let fleetUpgrade = try Self.make { () throws(FleetConfigurationError) in
                try FleetUpgrade(devices: devices, images: images, configuration: configuration, connector: fleet.connector)
            }
            let display = FleetProgressDisplay(fd: output.progressDescriptor)
            let events = fleetUpgrade.events()
            let showing = Task { await display.consume(events) { fleetUpgrade.statuses } }
            let interrupts = Interrupts { fleetUpgrade.cancel() }
            let report = await fleetUpgrade.run()
            interrupts.stop()
            await showing.value
            try write(report)
            try output.emit(report) { report.summary }
            guard report.exitStatus == .success else {
                throw CommandFailure(report.exitStatus, Self.failureLine(report))
            }
        }

        /// Makes a fleet object, turning a configuration error into the exit status a single upgrade would give.
        static func make<T>(_ body: () throws(FleetConfigurationError) -> T) throws -> T {
            do {
                return try body()
            } catch {
                switch error {
                case .invalid(let why): throw CommandFailure(.usage, why)
                case .upgrade(let upgradeError): throw CommandFailure(upgradeError)
                }
            }
        }

        /// The one error line of a fleet that did not fully succeed.
        static func failureLine(_ report: FleetReport) -> String {
            var line = "\(report.failed.count) of \(report.devices.count) devices failed"
            if !report.notStarted.isEmpty { line += ", \(report.notStarted.count) not started" }
            if let reason = report.stopReason { line += " (\(reason))" }
            if report.exitStatus == .transport { line += "; no device could be reached" }
            return line
        }

        /// Writes `report` as JSON to `--report`, when given.
        private func write(_ report: some Encodable) throws {
            guard let reportPath else { return }
            do {
                try Data((try JSONOutput.encode(report) + "\n").utf8).write(to: URL(fileURLWithPath: reportPath), options: .atomic)
            } catch {
                throw CommandFailure(.input, "cannot write the report to \(reportPath): \(FileErrorReason.text(error))")
            }
        }
    }
}
