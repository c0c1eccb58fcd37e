import Foundation
import SMPTestSupport
import Testing

/// `scripts/hostile-controller.py` (Python standard library only): an HCI controller over TCP that
/// answers the host's set-up and then floods or crowds the scan (see the script). An independent
/// peer, written from the Core spec, not from our host.
final class HostileController: Sendable {
    let child: ChildProcess
    let port: Int

    private init(child: ChildProcess, port: Int) {
        self.child = child
        self.port = port
    }

    /// Starts the controller with `options` and waits for its "listening on" line.
    static func start(_ options: [String]) async throws -> HostileController {
        let (child, port) = try await HostileDevice.launchListening("hostile-controller.py", options, what: "the hostile controller")
        return HostileController(child: child, port: port)
    }

    /// The controller's report of the last host that left: LE Connection Complete events sent.
    func connectionEventsSent() async throws -> Int? {
        try await child.awaitOutput(within: .seconds(10)) { text -> Int? in
            guard let range = text.range(of: "host left: ") else { return nil }
            return text[range.upperBound...].split(separator: " ").first.flatMap { Int($0) }
        }
    }

    func stop() {
        child.terminate()
        child.closeLifeline()
    }

    deinit { stop() }

    /// Runs `mcumgr --hci tcp:…` against this controller under `scripts/peak-rss.py`, which kills it
    /// after `killAfter` seconds; returns the result and the peak resident set size in KiB.
    func mcumgr(_ arguments: [String], killAfter: Double = 60) async throws -> (result: CLI.Result, peakKiB: Int?) {
        let python = try #require(HostileDevice.python)
        let wrapper = BuiltProducts.packageRoot.appendingPathComponent("scripts/peak-rss.py").path
        let result = try await CLI.run(
            python, [wrapper, "--kill-after", String(killAfter), "--", try BuiltProducts.require("mcumgr"), "--hci", "tcp:127.0.0.1:\(port)"] + arguments,
            timeout: killAfter * 2 + 30)
        let peak = result.stderrLines.last { $0.hasPrefix("peak-rss-kb ") }.flatMap { Int($0.dropFirst("peak-rss-kb ".count)) }
        return (result, peak)
    }
}
