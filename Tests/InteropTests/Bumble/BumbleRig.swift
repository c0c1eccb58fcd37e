import BLEHost
import Foundation
import SMPTestSupport
import Logging
import McuMgrTools

#if canImport(Glibc)
import Glibc
#endif

/// bumble's two virtual controllers on one virtual link, the SMP peripheral (Peers/bumble_smp_peripheral.py)
/// on the first, `mcumgr-sim` behind it over UDP, and the second controller free for our host.
///
/// Each rig has its own loopback address (127.77.x.y) and free TCP ports, so tests run in
/// parallel. Every child holds a lifeline pipe: if the test process dies, they stop.
final class BumbleRig: Sendable {
    /// The loopback address the controllers and the simulator use.
    let address: String
    /// The controller our host attaches to.
    let controller: HCIController
    /// The peripheral's address on the virtual link.
    let peripheralAddress = "F0:F1:F2:F3:F4:F5"
    /// The name it advertises.
    let peripheralName = "smp-sim"
    let simulator: SimulatorProcess
    private let controllers: ChildProcess
    private let peripheral: ChildProcess
    private let peripheralOut: URL
    private let controllersErr: URL

    private init(
        address: String, controller: HCIController, simulator: SimulatorProcess, controllers: ChildProcess, peripheral: ChildProcess,
        peripheralOut: URL, controllersErr: URL
    ) {
        self.address = address
        self.controller = controller
        self.simulator = simulator
        self.controllers = controllers
        self.peripheral = peripheral
        self.peripheralOut = peripheralOut
        self.controllersErr = controllersErr
    }

    /// Starts the simulator, the controllers and the peripheral, and waits until it advertises.
    /// With `hostOverPTY`, our host's controller is served on a pseudo-terminal instead of TCP.
    static func launch(
        peripheral extra: [String] = [], simulator simulatorArguments: [String] = [], hostOverPTY: Bool = false
    ) async throws -> BumbleRig {
        try BuiltProducts.requirePeers()
        var lastFailure = ""
        for _ in 0..<3 {
            let address = "127.77.\(UInt8.random(in: 1...254)).\(UInt8.random(in: 1...254))"
            let directory = try Interop.temporaryDirectory("bumble")
            let ports = try freePorts(on: address, count: 2)
            let ptyPath = directory.appendingPathComponent("hci-pty").path
            let hostSpec = hostOverPTY ? "pty:\(ptyPath)" : "tcp-server:\(address):\(ports[1])"
            let controllersErr = directory.appendingPathComponent("controllers.err")
            // bumble.apps.controllers as is, plus a thread that exits when the lifeline closes.
            let launcher = """
                import os, runpy, sys, threading
                threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
                sys.argv = ['bumble-controllers'] + sys.argv[1:]
                runpy.run_module('bumble.apps.controllers', run_name='__main__')
                """
            let controllers = try Subprocess.launch(
                Interop.python, ["-c", launcher, "tcp-server:\(address):\(ports[0])", hostSpec],
                stdout: directory.appendingPathComponent("controllers.out"), stderr: controllersErr, lifeline: true)
            let simulator: SimulatorProcess
            do {
                simulator = try await SimulatorProcess.launch(host: address, arguments: simulatorArguments)
            } catch {
                controllers.terminate()
                throw error
            }
            let out = directory.appendingPathComponent("peripheral.out")
            let script = BuiltProducts.packageRoot.path + "/Tests/InteropTests/Peers/bumble_smp_peripheral.py"
            let peripheral = try Subprocess.launch(
                Interop.python, [script, "--transport", "tcp-client:\(address):\(ports[0])", "--sim", "\(address):1337"] + extra,
                stdout: out, stderr: directory.appendingPathComponent("peripheral.err"), lifeline: true)
            let controller: HCIController = hostOverPTY ? .serial(path: ptyPath, baudRate: 1_000_000) : .tcp(host: address, port: ports[1])
            let rig = BumbleRig(
                address: address, controller: controller, simulator: simulator, controllers: controllers, peripheral: peripheral,
                peripheralOut: out, controllersErr: controllersErr)
            if await rig.waitFor("ready", timeout: .seconds(30)), controllers.isRunning,
                !hostOverPTY || FileManager.default.fileExists(atPath: ptyPath)
            {
                return rig
            }
            lastFailure = "peripheral:\n\(rig.peripheralLog)\ncontrollers:\n\((try? String(contentsOf: controllersErr, encoding: .utf8)) ?? "")"
            await rig.stop()
        }
        throw InteropError("bumble's controllers and peripheral did not start:\n\(lastFailure)")
    }

    /// What the peripheral printed so far.
    var peripheralLog: String { (try? String(contentsOf: peripheralOut, encoding: .utf8)) ?? "" }

    /// Waits until the peripheral printed a line starting with `prefix`; false after `timeout`.
    func waitFor(_ prefix: String, count: Int = 1, timeout: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if lines(startingWith: prefix).count >= count { return true }
            if !peripheral.isRunning { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// The peripheral's output lines that start with `prefix`.
    func lines(startingWith prefix: String) -> [String] {
        peripheralLog.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
    }

    /// Opens our host on the free controller and starts it.
    func startHost(configuration: LEHost.Configuration = LEHost.Configuration()) async throws -> LEHost {
        let transport: any HCITransport
        switch controller {
        case .tcp(let host, let port): transport = try await HCITransports.tcp(host: host, port: port, logger: Self.quiet)
        case .serial(let path, let baud): transport = try await HCITransports.serial(path: path, baudRate: baud ?? 1_000_000, logger: Self.quiet)
        case .userChannel(let index): transport = try await HCITransports.userChannel(index: index, logger: Self.quiet)
        }
        let host = LEHost(transport: transport, configuration: configuration, logger: Self.quiet)
        do {
            try await host.start()
        } catch {
            await host.close()
            throw error
        }
        return host
    }

    /// Stops the peripheral, the controllers and the simulator.
    func stop() async {
        peripheral.terminate()
        controllers.terminate()
        _ = await peripheral.exitStatus()
        _ = await controllers.exitStatus()
        await simulator.stop()
    }

    /// A logger that only reports errors.
    static let quiet: Logger = {
        var logger = Logger(label: "ble.host.test")
        logger.logLevel = ProcessInfo.processInfo.environment["BLEHOST_TEST_LOG"].flatMap { Logger.Level(rawValue: $0) } ?? .error
        return logger
    }()

    /// Ports the kernel says are free on `address` now (bound and released at once).
    private static func freePorts(on address: String, count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { _ = close($0) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw InteropError("socket: \(errno)") }
            sockets.append(fd)
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = 0
            inet_pton(AF_INET, address, &sin.sin_addr)
            let bound = withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard bound == 0 else { throw InteropError("bind \(address): \(errno)") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            ports.append(Int(UInt16(bigEndian: sin.sin_port)))
        }
        return ports
    }
}

/// Runs `body` with a fresh rig, and stops it after, whether `body` succeeds or throws.
func withBumbleRig<T>(
    peripheral: [String] = [], simulator: [String] = [], hostOverPTY: Bool = false, _ body: (BumbleRig) async throws -> T
) async throws -> T {
    let rig = try await BumbleRig.launch(peripheral: peripheral, simulator: simulator, hostOverPTY: hostOverPTY)
    do {
        let result = try await body(rig)
        await rig.stop()
        return result
    } catch {
        await rig.stop()
        throw error
    }
}
