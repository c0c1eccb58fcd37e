import Foundation
import SMP
import SMPTestSupport
import Testing

import Glibc

/// ICMP refusals end a UDP request at once, with exit 3, naming the address.
@Suite("A device that is not there fails at once (issue 32)")
struct FailFastTests {
    @Test("a closed UDP port ends the command at once with exit 3, naming the address (the kernel's ICMP refusal)")
    func closedPort() async throws {
        let port = try ClosedUDPPort.make()
        let result = try await CLI.mcumgr(["--udp", "127.0.0.1:\(port)", "image", "list"], timeout: 60)
        Expect.failure(result, status: 3, mentioning: "127.0.0.1:\(port) refused the datagram")
        #expect(!result.stderr.contains("attempts"), "it waited for timeouts: \(result)")
    }

    @Test("an upgrade to a closed port fails at once too (exit 3), before anything is sent")
    func closedPortUpgrade() async throws {
        let port = try ClosedUDPPort.make()
        let image = CLI.packageRoot.appendingPathComponent("Examples/images/demo-app-1.1.0.bin").path
        let result = try await CLI.mcumgr(["--udp", "127.0.0.1:\(port)", "upgrade", image], timeout: 60)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("127.0.0.1:\(port) refused the datagram"), "\(result)")
    }
}
