import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

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

    let process: Process
    let devices: [Device]
    private let outURL: URL
    private let lifeline: Pipe

    private init(process: Process, devices: [Device], outURL: URL, lifeline: Pipe) {
        self.process = process
        self.devices = devices
        self.outURL = outURL
        self.lifeline = lifeline
    }

    /// Starts `count` devices from `first` (`127.0.0.2:0`: consecutive addresses, each on a port of its own).
    static func start(count: Int, first: String = "127.0.0.2:0", _ arguments: [String] = []) async throws -> FleetSimulator {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CLI.require("mcumgr-sim"))
        process.arguments = ["--devices", "\(count)", "--udp", first, "--quiet", "--exit-on-eof"] + arguments
        let directory = CLI.temporaryDirectory()
        let outURL = directory.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let lifeline = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = lifeline
        try process.run()
        try? out.close()
        let deadline = ContinuousClock.now + .seconds(30)
        var devices: [Device] = []
        while ContinuousClock.now < deadline, process.isRunning {
            let text = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
            devices = text.split(separator: "\n").compactMap(Self.device)
            if devices.count == count { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        guard devices.count == count else {
            process.terminate()
            throw CLIError.simulatorDidNotStart(String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self))
        }
        return FleetSimulator(process: process, devices: devices, outURL: outURL, lifeline: lifeline)
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
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try? lifeline.fileHandleForWriting.close()
        let text = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
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
        if process.isRunning { process.terminate() }
        try? lifeline.fileHandleForWriting.close()
    }
}
