import Foundation
import SMPTestSupport
import Testing

/// `mcumgr --hci tcp:…` against bumble's controllers and peripheral.
@Suite("mcumgr --hci against bumble")
struct BumbleCLITests {
    /// The built `mcumgr`, next to `mcumgr-sim`.
    static func mcumgr(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessOutput {
        let binary = try BuiltProducts.require("mcumgr")
        return try await Subprocess.run(binary, arguments, environment: environment, timeout: .seconds(120))
    }

    @Test("--ble-scan lists the peripheral (table and JSON); --ble ADDRESS and --ble NAME echo; a profile with hci= works with -c")
    func cli() async throws {
        try await withBumbleRig { rig in
            let hci = rig.controller.description
            let table = try await Self.mcumgr(["--hci", hci, "--ble-scan", "--scan-seconds", "3"])
            #expect(table.status == 0, "\(table.stderr)")
            #expect(table.stdout.contains("\(rig.peripheralAddress) (random)  \(rig.peripheralName)"))
            let json = try await Self.mcumgr(["--hci", hci, "--ble-scan", "--scan-seconds", "3", "--json"])
            try #require(json.status == 0, "exit \(json.status): \(json.stderr)")
            let entries = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
            #expect(entries?.first?["address"] as? String == rig.peripheralAddress)
            #expect(entries?.first?["name"] as? String == rig.peripheralName)

            let byAddress = try await Self.mcumgr(["--hci", hci, "--ble", rig.peripheralAddress, "echo", "hi"])
            #expect(byAddress.status == 0, "\(byAddress.stderr)")
            #expect(byAddress.stdout == "hi\n")
            let byName = try await Self.mcumgr(["echo", "by", "name", "--hci", hci, "--ble", rig.peripheralName])
            #expect(byName.stdout == "by name\n", "\(byName.stderr)")

            let env = ["MCUMGR_CONFIG_DIR": try Interop.temporaryDirectory("profiles").path]
            let add = try await Self.mcumgr(["conn", "add", "bumble", "type=ble", "connstring=peer_name=\(rig.peripheralName),hci=\(hci)"], environment: env)
            #expect(add.status == 0, "\(add.stderr)")
            let list = try await Self.mcumgr(["-c", "bumble", "image", "list", "--json"], environment: env)
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout.contains("\"confirmed\""))
        }
    }
}
