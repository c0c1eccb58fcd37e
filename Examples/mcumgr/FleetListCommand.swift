import ArgumentParser
import McuMgrFleet
import McuMgrTools

extension MCUmgr {
    /// `mcumgr fleet list (--devices FILE | --udp-range RANGE) [--json]`: what each device runs.
    struct FleetListCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Show each device's running version.",
            discussion: """
                Exit status: 0 every device was read, 1 some could not be, 3 none could be, 130 interrupted (Ctrl-C or \
                SIGTERM starts no further device and prints what was read so far).
                """)

        @OptionGroup var fleet: FleetOptions

        func run() async throws {
            let devices = try fleet.devices()
            let inventory = FleetInventory(devices: devices, concurrency: fleet.fleetConcurrency, connector: fleet.connector)
            // Ctrl-C or SIGTERM stops starting devices; what was read so far is still printed.
            let (report, interrupted) = try await Interrupts.cancelling("every device") { (await inventory.run(), Task.isCancelled) }
            try fleet.output.emit(report) { report.text }
            guard !interrupted else {
                throw CommandFailure(.interrupted, "interrupted: \(report.entries.count) of \(devices.count) devices read or tried")
            }
            guard report.exitStatus == .success else {
                let unread = report.entries.filter { $0.slots == nil }.count
                throw CommandFailure(report.exitStatus, "\(unread) of \(report.entries.count) devices could not be read")
            }
        }
    }
}
