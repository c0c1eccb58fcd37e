import Foundation
import SMPTestSupport

/// A `mcumgr-sim --devices N` process: N simulated devices on consecutive addresses (or ports),
/// their addresses and faults read from its start lines, and what each received read from its
/// stop lines.
final class FleetSimulator: @unchecked Sendable {
    /// One device as the simulator announced it.
    struct Device {
        let index: Int
        /// `HOST:PORT`.
        let address: String
        /// The fault's name (`drop`, `reset`, `busy`, `refuse`, `no-return`), if any.
        let fault: String?
    }

    let child: ChildProcess
    let devices: [Device]

    private init(child: ChildProcess, devices: [Device]) {
        self.child = child
        self.devices = devices
    }

    /// Starts `count` devices from `first` (`127.0.0.2:0`: consecutive addresses, each on a port of its own).
    static func start(count: Int, first: String = "127.0.0.2:0", _ arguments: [String] = []) async throws -> FleetSimulator {
        let directory = try Subprocess.temporaryDirectory("fleet-sim")
        let child = try Subprocess.launch(
            try BuiltProducts.require("mcumgr-sim"), ["--devices", "\(count)", "--udp", first, "--quiet", "--exit-on-eof"] + arguments,
            stdout: directory.appendingPathComponent("stdout"), stderr: nil, lifeline: true)
        let devices = try await child.awaitOutput(within: SimulatorProcess.startLimit) { text -> [Device]? in
            let devices = text.split(separator: "\n").compactMap(Self.device)
            return devices.count == count ? devices : nil
        }
        guard let devices else {
            child.terminate()
            child.closeLifeline()
            throw ProcessError("mcumgr-sim --devices \(count) did not say where its devices serve:\n\(child.stdout)")
        }
        return FleetSimulator(child: child, devices: devices)
    }

    /// Reads `device 3: listening on 127.0.0.5:41234, fault: drop (…)`.
    static func device(_ line: Substring) -> Device? {
        guard line.hasPrefix("device "), let colon = line.firstIndex(of: ":"), let index = Int(line[line.index(line.startIndex, offsetBy: 7)..<colon]),
              let range = line.range(of: ": listening on ")
        else { return nil }
        let rest = line[range.upperBound...]
        let parts = rest.components(separatedBy: ", fault: ")
        let fault = parts.count > 1 ? parts[1].split(separator: " ").first.map(String.init) : nil
        return Device(index: index, address: parts[0], fault: fault)
    }

    /// A devices file naming every device `dev-N`.
    func devicesFile() throws -> String {
        let path = CLI.temporaryDirectory().appendingPathComponent("devices.txt").path
        let lines = ["# written by the fleet CLI tests"] + devices.map { "udp:\($0.address)  dev-\($0.index)" }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Stops the simulator and returns, by device, the packets and upload requests it received.
    func stop() async throws -> [(packets: Int, uploads: Int)] {
        child.terminate()
        child.closeLifeline()
        _ = await child.exitStatus()
        let text = child.stdout
        var counts: [Int: (Int, Int)] = [:]
        for line in text.split(separator: "\n") where line.contains(" packets received, ") {
            // device 3: 12 packets received, 0 upload requests, 1 boots
            let words = line.split(separator: " ")
            guard words.count >= 7, let index = Int(words[1].dropLast()), let packets = Int(words[2]), let uploads = Int(words[5]) else { continue }
            counts[index] = (packets, uploads)
        }
        return devices.map { counts[$0.index] ?? (-1, -1) }
    }

    deinit {
        child.terminate()
        child.closeLifeline()
    }
}
