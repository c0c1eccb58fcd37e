import Foundation
import SMPTestSupport

/// `mcumgr-sim --serial` as a child process on a new pseudo-terminal, with its peers' commands.
typealias SerialSimulatorProcess = SimulatorProcess

extension SimulatorProcess {
    /// Starts the simulator on a new pty with quick reboots, logging requests.
    static func launch(arguments: [String] = []) async throws -> SimulatorProcess {
        try BuiltProducts.requirePeers()
        return try await startSerial(["--boot-time", "200", "--reset-delay", "50"] + arguments)
    }

    /// The pty's slave path.
    var path: String { serialPath ?? "" }
}
