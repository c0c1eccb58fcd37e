import Foundation
import SMPTestSupport
import Testing

/// Bluetooth LE through a real Linux kernel and BlueZ: a qemu guest with btvirt's two linked LE
/// controllers, `mcumgr-sim --hci user:1` (our LE host as a peripheral) on one, `mcumgr` on the
/// other through the kernel's L2CAP socket (with bluetoothd and without it), through bluetoothd's
/// D-Bus API (`--bluez`, unprivileged), and through our own LE host on its user channel; smpmgr
/// over bleak beside them. One boot runs every check (scripts/blevm/ble-checks.sh); each test
/// reads the checks it is about. See docs/blevm.md.
// Runs where qemu is installed and the VM image is cached or can be built (root, mmdebstrap);
// elsewhere the suite is skipped, and `BlueZVM.mayRun` says why in one line on standard error.
@Suite(
    "Bluetooth LE through a real kernel and BlueZ (qemu guest)",
    .enabled(if: BlueZVM.mayRun, "needs qemu-system-x86_64 and the BLE VM image (root and mmdebstrap to build it); see docs/blevm.md"),
    .timeLimit(.minutes(50)))
struct BlueZVMTests {
    @Test("the kernel sets up btvirt's two controllers, bluetoothd powers hci0, mcumgr-sim advertises on hci1's user channel")
    func setUp() async throws {
        let result = try await BLEChecksRun.result()
        BLEChecksRun.expectPassed(["controllers", "bluetoothd", "sim"], in: result)
        #expect(result.file("logs/sim-1.out")?.hasPrefix("advertising as C0:5A:17:00:00:01 (random) on user:1 as 'smp-sim-blevm'") == true)
    }

    @Test(
        "mcumgr --ble through the kernel's L2CAP socket: scan, connect, MTU 498, echo by address and by name (whole only in the scan response), image list",
        arguments: ["", "nobluetoothd-"])
    func socketPath(prefix: String) async throws {
        let result = try await BLEChecksRun.result()
        BLEChecksRun.expectPassed(["scan", "echo-address", "mtu", "echo-name", "image-list"].map { prefix + $0 }, in: result)
        #expect(result.file("checks/\(prefix)scan.out")?.contains("C0:5A:17:00:00:01 (random)  smp-sim-blevm") == true)
    }

    @Test(
        "a test-and-confirm upgrade of a 220 KiB image through the kernel's socket, the peripheral asking for other connection parameters during it: image list shows its hash, the slot holds its bytes",
        arguments: ["", "nobluetoothd-"])
    func upgrade(prefix: String) async throws {
        let result = try await BLEChecksRun.result()
        BLEChecksRun.expectPassed(["upgrade-sim", "upgrade", "upgrade-slot"].map { prefix + $0 }, in: result)
    }

    @Test(
        "the peripheral's controller is powered off and on in the middle of an upload: mcumgr through the kernel's socket, bluetoothd's D-Bus API and our own LE host each reconnects and resumes, the slot holds the image",
        arguments: ["", "bluez-", "user-central-"])
    func controllerPowerCycled(prefix: String) async throws {
        let result = try await BLEChecksRun.result()
        BLEChecksRun.expectPassed(["cycle-sim", "cycle-upgrade", "cycle-resumed"].map { prefix + $0 }, in: result)
        let resumed = result.file("checks/\(prefix)cycle-resumed.out") ?? ""
        #expect(resumed.contains("upload requests carried"), "\(resumed)")
        #expect(resumed.contains("controller powered off until the device is back"), "\(resumed)")
    }

    @Test("without bluetoothd, the peripheral goes silent in the middle of an upload (its link dropped): mcumgr reconnects through the kernel and resumes, the slot holds the image")
    func linkDropped() async throws {
        let result = try await BLEChecksRun.result()
        BLEChecksRun.expectPassed(["nobluetoothd-drop-sim", "nobluetoothd-drop-upgrade", "nobluetoothd-drop-resumed"], in: result)
        #expect(result.file("checks/nobluetoothd-drop-resumed.out")?.contains("upload requests carried") == true)
    }

    @Test(
        "the socket path (and our own LE host, for a device that needs pairing) fails in one line with exit status 3, in bounded time",
        arguments: [
            ("no-adapter", "no Bluetooth adapter"),
            ("powered-off", "is powered off: power it on with `btmgmt --index 0 power on`"),
            ("unknown-adapter", "no Bluetooth adapter hci7"),
            ("name-not-found", "no advertisement from an SMP device named 'nosuchdevice' within 10.0 seconds"),
            ("address-not-found", "no connection to C0:5A:17:00:00:99 (random) within 10.0 seconds"),
            ("permission", "permission denied"),
            ("busy", "is connected through bluetoothd, which holds its ATT channel: disconnect it first (`bluetoothctl disconnect C0:5A:17:00:00:01`"),
            ("pairing", "the device requires pairing (ATT_WRITE_REQ on handle 0x0013 failed: Insufficient Authentication (0x05)): pair it first"),
            ("user-central-pairing", "the device requires a paired, encrypted link (ATT Insufficient Authentication (0x05)); this HCI host does not pair or encrypt"),
        ])
    func failure(check: String, phrase: String) async throws {
        let result = try await BLEChecksRun.result()
        let status = result.file("checks/\(check).mcumgr.status")?.trimmingCharacters(in: .whitespacesAndNewlines)
        let message = result.file("checks/\(check).mcumgr.err") ?? ""
        let milliseconds = result.file("checks/\(check).mcumgr.ms").flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(status == "3", "exit status \(status ?? "missing"): \(message)")
        #expect(message.split(separator: "\n").count == 1, "\(message)")
        #expect(message.contains(phrase), "\(message)")
        // Startup under TCG takes seconds; the scan and the connection attempt are bounded at 10 s.
        #expect((milliseconds ?? .max) < 40_000, "took \(milliseconds ?? -1) ms")
    }

    @Test("while bluetoothd's GATT client holds the link (the kernel auto-connected) mcumgr says so; once it is disconnected, mcumgr connects")
    func bluetoothdHoldsTheLink() async throws {
        let result = try await BLEChecksRun.result()
        BLEChecksRun.expectPassed(["fail-busy", "busy-recovered"], in: result)
    }

    @Test(
        "mcumgr --bluez through bluetoothd's D-Bus API as an unprivileged user: echo by address and by name, MTU 498 from AcquireWrite, image list, scan; --ble chooses it while bluetoothd runs"
    )
    func dbusPath() async throws {
        let result = try await BLEChecksRun.result()
        BLEChecksRun.expectPassed(
            ["bluez-sim", "bluez-echo-address", "bluez-mtu", "bluez-echo-name", "bluez-default", "bluez-image-list", "bluez-scan"], in: result)
        #expect(result.file("checks/bluez-scan.out")?.contains("C0:5A:17:00:00:01 (random)  smp-sim-blevm") == true)
    }

    @Test("--bluez-no-acquire: echo and a 220 KiB upload through WriteValue and StartNotify (bluetoothd's fallback without acquired descriptors); the slot holds the image")
    func dbusMethodCalls() async throws {
        let result = try await BLEChecksRun.result()
        BLEChecksRun.expectPassed(["bluez-calls", "bluez-calls-upload"], in: result)
        #expect(result.file("checks/bluez-calls.out")?.contains("(WriteValue/StartNotify)") == true)
    }

    @Test("mcumgr --bluez upgrades (220 KiB, test and confirm) as an unprivileged user; the slot holds the image")
    func dbusUpgrade() async throws {
        let result = try await BLEChecksRun.result()
        BLEChecksRun.expectPassed(["bluez-upgrade-sim", "bluez-upgrade", "bluez-upgrade-slot"], in: result)
    }

    @Test(
        "the D-Bus path fails in one line with exit status 3, in bounded time",
        arguments: [
            ("bluez-no-adapter", "no Bluetooth adapter: bluetoothd manages none"),
            ("bluez-powered-off", "is powered off: power it on with `bluetoothctl power on`"),
            ("bluez-unknown-adapter", "no Bluetooth adapter hci7 in bluetoothd"),
            ("bluez-name-not-found", "no advertisement from an SMP device named 'nosuchdevice' within 10.0 seconds"),
            ("bluez-permission", "permission denied"),
            ("bluez-no-bluetoothd", "bluetoothd is not running"),
        ])
    func dbusFailure(check: String, phrase: String) async throws {
        try await failure(check: check, phrase: phrase)
    }

    @Test("smpmgr (smpclient over bleak, BlueZ's D-Bus API) uploads the image to mcumgr-sim --hci user:1; the slot holds it")
    func smpmgrOverBleak() async throws {
        let result = try await BLEChecksRun.result()
        BLEChecksRun.expectPassed(["smpmgr-sim", "smpmgr-upload", "smpmgr-slot"], in: result)
    }

    @Test("the same image uploads through the socket, D-Bus and user-channel paths (the times are recorded in checks/bench-*.ms)")
    func benchUploads() async throws {
        let result = try await BLEChecksRun.result()
        BLEChecksRun.expectPassed(["bench-socket", "bench-bluez", "bench-hci"], in: result)
    }

    @Test("mcumgr --hci user:0: our LE host as the central on hci0's user channel echoes and upgrades against the same peripheral")
    func userChannelCentral() async throws {
        let result = try await BLEChecksRun.result()
        BLEChecksRun.expectPassed(["user-central-sim", "user-central", "user-central-slot"], in: result)
    }

    @Test("every check of the run passed, and the guest script says so")
    func allChecks() async throws {
        let result = try await BLEChecksRun.result()
        #expect(result.status == 0, "\(result.file("summary") ?? "")\n\(result)")
        #expect(result.file("summary")?.contains("0 checks failed") == true)
    }
}
