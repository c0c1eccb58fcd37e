import Foundation
import Testing

/// `--hci`: Bluetooth LE through our own LE host on an HCI controller (here, without Bluetooth in the kernel).
@Suite("mcumgr --hci")
struct HCITests {
    @Test("the HCI user channel on this machine (no Bluetooth in the kernel) fails fast with exit 3 and says so")
    func userChannelWithoutBluetooth() async throws {
        for arguments in [["--hci", "user:0", "--ble-scan"], ["--hci", "user:hci0", "--ble", "AA:BB:CC:DD:EE:FF", "echo", "hi"], ["--ble-scan", "--hci", "user:0", "--json"]] {
            let result = try await CLI.mcumgr(arguments)
            Expect.failure(result, status: 3, mentioning: "Bluetooth is not available in this kernel")
        }
    }

    @Test("--hci needs a device (--ble or --ble-scan) and a controller it can read")
    func usage() async throws {
        Expect.failure(try await CLI.mcumgr(["--hci", "user:0", "echo", "hi"]), status: 2, mentioning: "--ble")
        Expect.failure(try await CLI.mcumgr(["--hci", "usb:0", "--ble-scan"]), status: 2, mentioning: "tcp:HOST:PORT")
        Expect.failure(try await CLI.mcumgr(["--hci", "serial:@115200", "--ble-scan"]), status: 2, mentioning: "serial:PATH[@BAUD]")
        Expect.failure(try await CLI.mcumgr(["--hci", "serial:/dev/ttyACM0@12", "--ble-scan"]), status: 2, mentioning: "'12' is not a valid hci baud rate")
        Expect.failure(try await CLI.mcumgr(["--hci", "tcp:127.0.0.1:1", "--ble-scan", "--scan-seconds", "0"]), status: 2, mentioning: "--scan-seconds")
    }

    @Test("a profile names an HCI controller: saved as Go-style connstring with hci=, used with -c")
    func profile() async throws {
        let env = ["MCUMGR_CONFIG_DIR": CLI.temporaryDirectory().path]
        Expect.success(try await CLI.mcumgr(["conn", "add", "dongle", "--hci", "user:0", "--ble", "AA:BB:CC:DD:EE:FF"], environment: env))
        Expect.success(try await CLI.mcumgr(["conn", "add", "virtual", "type=ble", "connstring=peer_name=smp-sim,hci=tcp:127.0.0.1:9001"], environment: env))
        let show = try await CLI.mcumgr(["--json", "conn", "show"], environment: env)
        let connections = try #require(try show.json()["connections"] as? [String: [String: Any]])
        #expect(connections["dongle"]?["type"] as? String == "ble")
        #expect(connections["dongle"]?["connstring"] as? String == "peer_id=AA:BB:CC:DD:EE:FF,hci=user:0")
        #expect(connections["virtual"]?["connstring"] as? String == "peer_name=smp-sim,hci=tcp:127.0.0.1:9001")
        Expect.failure(try await CLI.mcumgr(["-c", "dongle", "echo", "hi"], environment: env), status: 3, mentioning: "Bluetooth is not available in this kernel")
    }
}
