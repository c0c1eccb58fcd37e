import ArgumentParser
import McuMgr

extension CrashTest: ExpressibleByArgument {}

extension MCUmgr {
    /// `mcumgr crash div0|jump0|ref0|assert|wdog`: Go mcumgr's crash command (Mynewt's crash group, 5).
    struct Crash: AsyncParsableCommand, DeviceCommand {
        static let configuration = CommandConfiguration(
            commandName: "crash", abstract: "Make the device crash, to test its fault handling (Mynewt's crash group).",
            discussion: """
                TEST is div0 (divide by zero), jump0 (jump to address 0), ref0 (read a null pointer), assert (a failed \
                assert) or wdog (spin until the watchdog resets the device). The device answers, then crashes and \
                reboots; a device that crashes before answering is reported as such. Zephyr does not offer this group.
                """)

        @Argument(help: ArgumentHelp("div0, jump0, ref0, assert or wdog.", valueName: "test"))
        var test: CrashTest

        @OptionGroup var global: GlobalOptions

        private struct Answer: Encodable {
            let ok = true, action = "crash"
            let test: String, answered: Bool
        }

        func run() async throws {
            let outcome = try await global.withClient { try await CrashManager(client: $0).crash(test) }
            let answered = outcome == .acknowledged
            try global.output.emit(Answer(test: test.rawValue, answered: answered)) {
                answered ? "Done: the device runs crash test \(test.rawValue) and reboots" : "Done: the device did not answer (it crashed at once)"
            }
        }
    }
}
