import Foundation
import SMPTestSupport
import Testing

/// The README's library example (Examples/library-quickstart) as a user would run it.
@Suite("The README's library example")
struct LibraryQuickstartTests {
    @Test("it upgrades the simulator and exits 0; a file that is not an image fails the program with status 1 before the upgrade")
    func upgradesTheSimulator() async throws {
        let program = try BuiltProducts.require("library-quickstart")
        let image = CLI.packageRoot.appendingPathComponent("Examples/images/demo-app-1.1.0.bin").path
        let sim = try await SimulatorProcess.start(["--boot-time", "200", "--reset-delay", "50"])
        defer { sim.stop() }
        let result = try await CLI.run(program, [sim.address, image])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("hello\n"))
        let listed = try await sim.mcumgr(["image", "list"])
        #expect(listed.stdout.contains("1.1.0"), "\(listed)")

        let notAnImage = CLI.packageRoot.appendingPathComponent("README.md").path
        let refused = try await CLI.run(program, [sim.address, notAnImage])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stdout.contains("failed: "), "\(refused)")
    }
}
