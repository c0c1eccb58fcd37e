import Foundation
import Glibc

/// bumble's two virtual controllers on one virtual link (``BumbleControllers``), the SMP GATT
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
    ///   - addressPrefix: the first two bytes of the loopback address the controllers listen on (e.g. `127.9`; the rest is random).
    ///   - hostTransport: bumble's transport for the second controller, given the address and a
    ///     free port; TCP on them by default (e.g. `pty:PATH` instead).
    ///   - peripheralArguments: extra options of the peripheral script (faults, pairing).
    ///   - simulatorArguments: `mcumgr-sim` options besides `--udp`.
    public static func launch(
        addressPrefix: String, hostTransport: (String, Int) -> String = { "tcp-server:\($0):\($1)" },
        peripheralArguments: [String] = [], simulatorArguments: [String] = []
    ) async throws -> BumbleLink {
        let pair = try BumbleControllers.launch(addressPrefix: addressPrefix, secondTransport: hostTransport)
        let address = pair.address
        let simulator: SimulatorProcess
        do {
            simulator = try await SimulatorProcess.start(simulatorArguments, endpoint: "\(address):1337", logsRequests: true)
        } catch {
            pair.process.terminate()
            throw error
        }
        let directory = try Subprocess.temporaryDirectory("bumble")
        let out = directory.appendingPathComponent("peripheral.out")
        let err = directory.appendingPathComponent("peripheral.err")
        let script = BuiltProducts.packageRoot.path + "/Tests/InteropTests/Peers/bumble_smp_peripheral.py"
        let peripheral = try Subprocess.launch(
            BuiltProducts.venvTool("python"), [script, "--transport", "tcp-client:\(address):\(pair.firstPort)", "--sim", "\(address):1337"] + peripheralArguments,
            stdout: out, stderr: err, lifeline: true)
        return BumbleLink(
            address: address, hostPort: pair.secondPort, simulator: simulator, controllers: pair.process, peripheral: peripheral,
            peripheralOut: out, peripheralErr: err, controllersErr: pair.errorLog)
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
}
