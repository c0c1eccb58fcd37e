import Foundation
import SMP
import SMPTestSupport
import SMPUDP

/// The devices' side of the benchmark: `mcumgr-sim --devices N` as a child process, so that its
/// CPU is not counted as the client's. Its devices listen on consecutive addresses from the first;
/// it stops when its standard input (a lifeline) closes.
struct FleetSimulator {
    let child: ChildProcess
    let stdout: URL

    /// Starts `count` devices with `latency` milliseconds of response latency and `bufferCount` SMP buffers.
    static func start(count: Int, first: String, latency: Double, bufferCount: Int) throws -> FleetSimulator {
        let directory = try Subprocess.temporaryDirectory("fleet-benchmark")
        let stdout = directory.appendingPathComponent("stdout")
        let child = try Subprocess.launch(
            try BuiltProducts.require("mcumgr-sim"),
            ["--udp", "\(first):0", "--devices", "\(count)", "--latency", "\(latency)", "--buf-count", "\(bufferCount)",
             "--images", "1", "--image-size", "16384", "--boot-time", "100", "--reset-delay", "50", "--quiet", "--exit-on-eof"],
            stdout: stdout, stderr: directory.appendingPathComponent("stderr"), lifeline: true)
        return FleetSimulator(child: child, stdout: stdout)
    }

    /// The devices' addresses, once all `count` are bound (`device N: listening on HOST:PORT`).
    func endpoints(count: Int) async throws -> [UDPEndpoint] {
        let clock = SMPClock.continuous
        let deadline = clock.now + .seconds(60)
        while clock.now < deadline, child.isRunning {
            let text = (try? String(contentsOf: stdout, encoding: .utf8)) ?? ""
            let endpoints = text.split(separator: "\n").compactMap { line -> UDPEndpoint? in
                guard line.contains(": listening on ") else { return nil }
                return line.split(separator: " ").last.flatMap { UDPEndpoint(String($0)) }
            }
            if endpoints.count == count { return endpoints }
            try await clock.sleep(for: .milliseconds(20))
        }
        throw ProcessError("mcumgr-sim --devices \(count) did not bind every device:\n\((try? String(contentsOf: stdout, encoding: .utf8)) ?? "")")
    }

    /// Closes the lifeline and waits for the simulator to end (its CPU then counts as a child's).
    func stop() async {
        child.terminate()
        child.closeLifeline()
        _ = await child.exitStatus()
    }
}
