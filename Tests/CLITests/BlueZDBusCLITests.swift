import Foundation
import SMPTestSupport
import Testing

/// `mcumgr --bluez` (bluetoothd's D-Bus API) and `--ble-socket` where no bluetoothd runs: this
/// machine has no system bus, and a private bus (dbus-daemon with the session configuration, named
/// through `DBUS_SYSTEM_BUS_ADDRESS`) has nobody owning `org.bluez`. The real bluetoothd is in the
/// BLE VM (BlueZVMTests).
@Suite("mcumgr --bluez without bluetoothd")
struct BlueZDBusCLITests {
    /// A private message bus for one test (dbus-daemon in the foreground), stopped at the end.
    private static func withPrivateBus<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = CLI.temporaryDirectory()
        let address = "unix:path=\(directory.path)/bus"
        let daemon = try Subprocess.launch(
            "/usr/bin/dbus-daemon", ["--config-file=/usr/share/dbus-1/session.conf", "--address=\(address)", "--nofork", "--print-address", "--nosyslog"],
            stdout: directory.appendingPathComponent("out"), stderr: directory.appendingPathComponent("err"))
        defer { daemon.terminate() }
        guard try await daemon.awaitOutput(within: .seconds(30), { $0.contains("unix:path=") ? true : nil }) == true else {
            throw ProcessError("dbus-daemon did not start")
        }
        return try await body(address)
    }

    @Test("no system bus: --bluez fails in one line, exit status 3, saying the bus does not answer")
    func noSystemBus() async throws {
        let result = try await CLI.mcumgr(
            ["--bluez", "AA:BB:CC:DD:EE:FF", "echo", "hi"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/system_bus_socket"],
            timeout: 60)
        Expect.failure(result, status: 3, mentioning: "the D-Bus system bus does not answer")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test("a bus without bluetoothd: --bluez says bluetoothd is not running; --ble falls back to the kernel's socket")
    func busWithoutBluetoothd() async throws {
        try await Self.withPrivateBus { address in
            let environment = ["DBUS_SYSTEM_BUS_ADDRESS": address]
            for arguments in [
                ["--bluez", "AA:BB:CC:DD:EE:FF", "echo", "hi"], ["--bluez", "my-board", "image", "list"],
                ["--conntype", "ble", "--connstring", "peer_name=x,stack=dbus", "echo", "x"], ["--bluez", "AA:BB:CC:DD:EE:FF", "--bluez-no-acquire", "echo", "hi"],
            ] {
                let result = try await CLI.mcumgr(arguments, environment: environment, timeout: 60)
                Expect.failure(result, status: 3, mentioning: "bluetoothd is not running")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            }
            // Without bluetoothd, --ble chooses the kernel's socket: this kernel has no Bluetooth.
            for arguments in [["--ble", "AA:BB:CC:DD:EE:FF", "echo", "hi"], ["--ble-socket", "AA:BB:CC:DD:EE:FF", "echo", "hi"]] {
                Expect.failure(try await CLI.mcumgr(arguments, environment: environment, timeout: 60), status: 3, mentioning: "Bluetooth is not available")
            }
        }
    }

    @Test("--bluez, --ble-socket and --bluez-no-acquire: misplaced options are usage errors (exit status 2)")
    func usageErrors() async throws {
        Expect.failure(try await CLI.mcumgr(["--bluez", "AA:BB:CC:DD:EE:FF", "--ble-security", "high", "echo", "x"]), status: 2, mentioning: "--ble-security")
        Expect.failure(try await CLI.mcumgr(["--bluez", "x", "--hci", "tcp:127.0.0.1:9001", "echo", "x"]), status: 2, mentioning: "--hci")
        Expect.failure(try await CLI.mcumgr(["--bluez", "x", "--ble-socket", "y", "echo", "x"]), status: 2, mentioning: "name one connection")
        Expect.failure(try await CLI.mcumgr(["--bluez", "x", "--ble-type", "random", "echo", "x"]), status: 2, mentioning: "--ble-type")
        for arguments in [["--ble-socket", "x"], ["--udp", "127.0.0.1"], ["--hci", "tcp:127.0.0.1:9001", "--ble", "x"], []] {
            Expect.failure(try await CLI.mcumgr(arguments + ["--bluez-no-acquire", "echo", "x"]), status: 2, mentioning: "--bluez-no-acquire is for the path through bluetoothd")
        }
        Expect.failure(
            try await CLI.mcumgr(["--conntype", "ble", "--connstring", "peer_name=x,stack=kernel", "echo", "x"]), status: 2, mentioning: "stack")
    }

    @Test("a profile saved from --bluez keeps stack=dbus, one from --ble-socket stack=socket")
    func profiles() async throws {
        let env = ["MCUMGR_CONFIG_DIR": CLI.temporaryDirectory().path]
        Expect.success(try await CLI.mcumgr(["conn", "add", "dbus", "--bluez", "aa:bb:cc:dd:ee:ff"], environment: env))
        Expect.success(try await CLI.mcumgr(["conn", "add", "socket", "--ble-socket", "board"], environment: env))
        let dbus = try await CLI.mcumgr(["conn", "show", "dbus"], environment: env)
        #expect(dbus.stdout.contains("peer_id=AA:BB:CC:DD:EE:FF,stack=dbus"), "\(dbus.stdout)")
        let socket = try await CLI.mcumgr(["conn", "show", "socket"], environment: env)
        #expect(socket.stdout.contains("peer_name=board,stack=socket"), "\(socket.stdout)")
    }
}
