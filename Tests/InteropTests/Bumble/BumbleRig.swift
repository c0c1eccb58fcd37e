import BLEHost
import Foundation
import SMPTestSupport
import Logging
import SMPBLE

import Glibc

/// Our host's side of a ``BumbleLink``: the controller to attach to and what the peripheral says.
///
/// Each rig has its own loopback address (127.77.x.y) and free TCP ports, so tests run in
/// parallel. Every child holds a lifeline pipe: if the test process dies, they stop.
final class BumbleRig: Sendable {
    /// The controllers, the peripheral and the simulator.
    let link: BumbleLink
    /// The controller our host attaches to.
    let controller: HCIController
    /// The peripheral's address on the virtual link.
    let peripheralAddress = "F0:F1:F2:F3:F4:F5"
    /// The name it advertises.
    let peripheralName = "smp-sim"

    /// The loopback address the controllers and the simulator use.
    var address: String { link.address }
    /// The simulator behind the peripheral.
    var simulator: SimulatorProcess { link.simulator }

    private init(link: BumbleLink, controller: HCIController) {
        self.link = link
        self.controller = controller
    }

    /// Starts the simulator, the controllers and the peripheral, and waits until it advertises.
    /// With `hostOverPTY`, our host's controller is served on a pseudo-terminal instead of TCP.
    static func launch(
        peripheral extra: [String] = [], simulator simulatorArguments: [String] = [], hostOverPTY: Bool = false
    ) async throws -> BumbleRig {
        try BuiltProducts.requirePeers()
        var lastFailure = ""
        for _ in 0..<3 {
            let ptyPath = try Interop.temporaryDirectory("bumble-pty").appendingPathComponent("hci-pty").path
            let link = try await BumbleLink.launch(
                addressPrefix: "127.77", hostTransport: { hostOverPTY ? "pty:\(ptyPath)" : "tcp-server:\($0):\($1)" },
                peripheralArguments: extra, simulatorArguments: ["--boot-time", "200", "--reset-delay", "50"] + simulatorArguments)
            let controller: HCIController = hostOverPTY ? .serial(path: ptyPath, baudRate: 1_000_000) : .tcp(host: link.address, port: link.hostPort)
            if await link.waitFor("ready"), !hostOverPTY || FileManager.default.fileExists(atPath: ptyPath) {
                return BumbleRig(link: link, controller: controller)
            }
            lastFailure = "\(link.peripheralLog)\n\(link.errorLog)"
            await link.stop()
        }
        throw InteropError("bumble's controllers and peripheral did not start:\n\(lastFailure)")
    }

    /// Waits until the peripheral printed a line starting with `prefix`; false after `timeout`.
    func waitFor(_ prefix: String, count: Int = 1, timeout: Duration = .seconds(30)) async -> Bool {
        await link.waitFor(prefix, count: count, timeout: timeout)
    }

    /// The peripheral's output lines that start with `prefix`.
    func lines(startingWith prefix: String) -> [String] {
        link.lines(startingWith: prefix)
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
        await link.stop()
    }

    /// A logger that only reports errors.
    static let quiet: Logger = {
        var logger = Logger(label: "ble.host.test")
        logger.logLevel = ProcessInfo.processInfo.environment["BLEHOST_TEST_LOG"].flatMap { Logger.Level(rawValue: $0) } ?? .error
        return logger
    }()
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
