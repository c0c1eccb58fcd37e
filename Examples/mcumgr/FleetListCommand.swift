import ArgumentParser
import McuMgrFleet
import McuMgrTools

extension MCUmgr {
    /// `mcumgr fleet list (--devices FILE | --udp-range RANGE) [--json]`: what each device runs.
    struct FleetListCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Show each device's running version.",
            discussion: "Exit status: 0 every device was read, 1 some could not be, 3 none could be.")

        @OptionGroup var fleet: FleetOptions

        func run() async throws {
            let inventory = FleetInventory(devices: try fleet.devices(), concurrency: fleet.fleetConcurrency, connector: fleet.connector)
            let report = await inventory.run()
            try fleet.output.emit(report) { report.text }
            guard report.exitStatus == .success else {
                let unread = report.entries.filter { $0.slots == nil }.count
                throw CommandFailure(report.exitStatus, "\(unread) of \(report.entries.count) devices could not be read")
            }
        }
    }
}
