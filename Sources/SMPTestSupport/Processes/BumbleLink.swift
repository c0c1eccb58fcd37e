import Foundation
import Glibc

/// bumble's two virtual controllers on one virtual link (`bumble.apps.controllers`), the SMP GATT
/// peripheral of the interop tests (`Tests/InteropTests/Peers/bumble_smp_peripheral.py`) on the
/// first, and `mcumgr-sim` behind it over UDP; the second controller is for the host under test.
///
/// Each link has its own loopback address and free TCP ports, so links run side by side. Every
/// child holds a lifeline on its standard input: if this process dies, they stop.
public struct BumbleLink: Sendable {
    /// The loopback address the controllers and the simulator use.
    public let address: String
    /// The TCP port of the second controller (when it is served over TCP).
    public let hostPort: Int
    /// The simulator behind the peripheral.
    public let simulator: SimulatorProcess
    /// bumble's controllers.
    public let controllers: ChildProcess
    /// The SMP peripheral.
    public let peripheral: ChildProcess
    /// Where the peripheral's standard output goes (it prints `ready` once it advertises).
    public let peripheralOut: URL
    /// Where the peripheral's and the controllers' standard error go.
    public let peripheralErr: URL, controllersErr: URL

    /// Starts the controllers, the simulator and the peripheral on a fresh `prefix.x.y` address.
    ///
    /// - Parameters:
    ///   - hostTransport: bumble's transport for the second controller, given the address and a
    ///     free port; TCP on them by default (e.g. `pty:PATH` instead).
    ///   - peripheralArguments: extra options of the peripheral script (faults, pairing).
    ///   - simulatorArguments: `mcumgr-sim` options besides `--udp`.
    public static func launch(
        addressPrefix: String, hostTransport: (String, Int) -> String = { "tcp-server:\($0):\($1)" },
        peripheralArguments: [String] = [], simulatorArguments: [String] = []
    ) async throws -> BumbleLink {
        let address = "\(addressPrefix).\(UInt8.random(in: 1...254)).\(UInt8.random(in: 1...254))"
        let directory = try Subprocess.temporaryDirectory("bumble")
        let ports = try freeTCPPorts(on: address, count: 2)
        let python = BuiltProducts.venvTool("python")
        // bumble.apps.controllers as is, plus a thread that exits when the lifeline closes.
        let launcher = """
            import os, runpy, sys, threading
            threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
            sys.argv = ['bumble-controllers'] + sys.argv[1:]
            runpy.run_module('bumble.apps.controllers', run_name='__main__')
            """
        let controllersErr = directory.appendingPathComponent("controllers.err")
        let controllers = try Subprocess.launch(
            python, ["-c", launcher, "tcp-server:\(address):\(ports[0])", hostTransport(address, ports[1])],
            stdout: directory.appendingPathComponent("controllers.out"), stderr: controllersErr, lifeline: true)
        let simulator: SimulatorProcess
        do {
            simulator = try await SimulatorProcess.start(simulatorArguments, endpoint: "\(address):1337", logsRequests: true)
        } catch {
            controllers.terminate()
            throw error
        }
        let out = directory.appendingPathComponent("peripheral.out")
        let err = directory.appendingPathComponent("peripheral.err")
        let script = BuiltProducts.packageRoot.path + "/Tests/InteropTests/Peers/bumble_smp_peripheral.py"
        let peripheral = try Subprocess.launch(
            python, [script, "--transport", "tcp-client:\(address):\(ports[0])", "--sim", "\(address):1337"] + peripheralArguments,
            stdout: out, stderr: err, lifeline: true)
        return BumbleLink(
            address: address, hostPort: ports[1], simulator: simulator, controllers: controllers, peripheral: peripheral,
            peripheralOut: out, peripheralErr: err, controllersErr: controllersErr)
    }

    /// What the peripheral printed so far.
    public var peripheralLog: String { (try? String(contentsOf: peripheralOut, encoding: .utf8)) ?? "" }

    /// The peripheral's output lines that start with `prefix`.
    public func lines(startingWith prefix: String) -> [String] {
        peripheralLog.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
    }

    /// Waits until the peripheral printed `count` lines starting with `prefix`; false after
    /// `timeout` (times ``TestTimeScale``) or when the peripheral or the controllers stopped.
    public func waitFor(_ prefix: String, count: Int = 1, timeout: Duration = .seconds(30)) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + TestTimeScale.scaled(timeout)
        while clock.now < deadline {
            if lines(startingWith: prefix).count >= count { return true }
            if !peripheral.isRunning || !controllers.isRunning { return false }
            try? await clock.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// What the peripheral and the controllers wrote on standard error, for a failure message.
    public var errorLog: String {
        let read = { (url: URL) in (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        return "peripheral:\n\(read(peripheralErr))\ncontrollers:\n\(read(controllersErr))"
    }

    /// Stops the peripheral, the controllers and the simulator, and waits for them.
    public func stop() async {
        peripheral.terminate()
        controllers.terminate()
        _ = await peripheral.exitStatus()
        _ = await controllers.exitStatus()
        await simulator.stopAndWait()
    }

    /// TCP ports the kernel says are free on `address` now (bound and released at once).
    static func freeTCPPorts(on address: String, count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { _ = close($0) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw ProcessError("socket: errno \(errno)") }
            sockets.append(fd)
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = 0
            inet_pton(AF_INET, address, &sin.sin_addr)
            let bound = withUnsafePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard bound == 0 else { throw ProcessError("bind \(address): errno \(errno)") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &sin) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            ports.append(Int(UInt16(bigEndian: sin.sin_port)))
        }
        return ports
    }
}
