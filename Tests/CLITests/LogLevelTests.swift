import Foundation
import SMP
import SMPTestSupport
import Testing

import Glibc

/// Logging through swift-log at the level asked for.
@Suite("--log-level (issue 32)")
struct LogLevelTests {
    @Test("--log-level trace logs each frame's bytes in hex, -v (debug) its header, info no frames; a bad level is a usage error")
    func logLevels() async throws {
        let hex = Array("hexcheck".utf8).map { String(format: "%02x", $0) }.joined()
        let trace = try await CLI.mcumgr(["--log-level", "trace", "echo", "hexcheck"])
        Expect.success(trace)
        #expect(trace.stderr.contains("os cmd 0"), "\(trace)")
        #expect(trace.stderr.contains(hex), "the echo request's bytes in hex: \(trace)")
        let debug = try await CLI.mcumgr(["-v", "echo", "hexcheck"])
        Expect.success(debug)
        #expect(debug.stderr.contains("os cmd 0"), "\(debug)")
        #expect(!debug.stderr.contains(hex), "\(debug)")
        let info = try await CLI.mcumgr(["--log-level", "info", "echo", "x"])
        Expect.success(info)
        #expect(!info.stderr.contains("->"), "\(info)")
        Expect.failure(try await CLI.mcumgr(["--log-level", "loud", "echo", "x"]), status: 2, mentioning: "--log-level must be trace, debug, info, warning or error")
    }
}
