import Glibc
import NIOCore
import NIOPosix
import SMP
@testable import SMPUDP
import Synchronization
import Testing

@Suite("UDP host resolution")
struct UDPHostResolverTests {
    /// The names of the threads look-ups ran on.
    final class LookUps: Sendable {
        let threads = Mutex<[String]>([])
        var all: [String] { threads.withLock { $0 } }
    }

    /// A resolver whose look-up records the name of the thread it ran on and answers `answer`.
    static func recording(_ lookUps: LookUps, answer: String = "127.0.0.1") -> UDPHostResolver {
        UDPHostResolver { _, port in
            lookUps.threads.withLock { $0.append(currentThreadName()) }
            return try SocketAddress(ipAddress: answer, port: port)
        }
    }

    @Test("IP literals are read without a look-up", arguments: [("192.0.2.1", "192.0.2.1"), ("::1", "::1"), ("fd00::1", "fd00::1")])
    func literalsNeedNoLookUp(host: String, expected: String) async throws {
        let lookUps = LookUps()
        let address = try await Self.recording(lookUps).address(of: host, port: 1337)
        #expect(address.ipAddress == expected)
        #expect(address.port == 1337)
        #expect(lookUps.all.isEmpty)
    }

    @Test("a host name is looked up on SwiftNIO's thread pool, not on the caller's executor")
    func hostNamesAreLookedUpOnThePool() async throws {
        let lookUps = LookUps()
        let address = try await Self.recording(lookUps, answer: "192.0.2.7").address(of: "device.local", port: 9)
        #expect(address.ipAddress == "192.0.2.7")
        let names = lookUps.all
        #expect(names.count == 1)
        // SwiftNIO names the threads of its pools "TP-#n" (the singleton pool's "SGLTN-TP-#n").
        #expect(names.first?.contains("TP-#") == true, "looked up on thread \(names)")
    }

    @Test("connect() reports a host that does not resolve as unreachable, naming it")
    func unresolvableHostIsUnreachable() async {
        struct NoSuchHost: Error {}
        let transport = UDPTransport(
            host: "no-such-device.invalid", port: 1337, maximumPacketSize: 1472, eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            sessionOnEventLoop: false, resolver: UDPHostResolver { _, _ in throw NoSuchHost() })
        await #expect {
            try await transport.connect()
        } throws: { error in
            guard case SMPTransportError.unreachable(let message) = error else { return false }
            return message.contains("no-such-device.invalid:1337")
        }
        await transport.close()
    }

    /// The calling thread's name, from `/proc/thread-self/comm`.
    static func currentThreadName() -> String {
        let fd = open("/proc/thread-self/comm", O_RDONLY)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return "?" }
        return String(decoding: buffer[..<count].filter { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}
