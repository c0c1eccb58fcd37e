import McuMgrConformance
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Synchronization
import Testing

/// A device that stops answering ends the run within the timeouts, naming the check.
@Suite("Conformance against a device that stops answering", .virtualTime)
struct UnresponsiveDeviceTests {
    @Test("a device that never comes back from a reset stops the run at os.reset within --boot-timeout")
    func neverComesBack() async throws {
        var faults = FaultConfiguration()
        faults.staysDownAfterReset = true
        let fixture = await ConformanceFixture.make(faults: faults)
        let start = fixture.clock.now
        let report = await fixture.run()
        let elapsed = fixture.clock.now - start
        #expect(report.stopped?.check == "os.reset")
        #expect(report.stopped?.reason.contains("did not answer within --boot-timeout") == true)
        #expect(report.result("os.reset")?.status == .fail)
        #expect(!report.passed)
        let after = report.results.drop { $0.id != "os.reset" }.dropFirst()
        #expect(!after.isEmpty && after.allSatisfy { $0.status == .skipped && $0.observed == "not run: the run stopped at os.reset" })
        // The reads before it, then the boot timeout (10 s): far less than a minute.
        #expect(elapsed < .seconds(40), "\(elapsed)")
    }

    @Test("a link that goes silent mid-run stops the run at the check that was running, within the timeouts")
    func goesSilent() async throws {
        let silence = SilentAfter(packets: 40)
        let fixture = await ConformanceFixture.make { SilencingTransport(wrapping: $0, silence: silence) }
        let start = fixture.clock.now
        let report = await fixture.run()
        let elapsed = fixture.clock.now - start
        let stopped = try #require(report.stopped)
        let ran = report.results.filter { !$0.observed.hasPrefix("not run") }
        #expect(ran.last?.id == stopped.check)
        #expect(ran.last?.status == .fail)
        #expect(stopped.reason.contains("stopped answering during \(stopped.check)"))
        // The check's own wait for its read with retries, then the echo that asks whether the device
        // still answers, with retries: 1 s × 3 each.
        #expect(elapsed <= .seconds(6), "\(elapsed)")
        #expect(report.results.count == ConformanceCheck.all.count)
    }
}

/// Counts packets sent; past the limit, the link goes silent (sends vanish).
final class SilentAfter: Sendable {
    private let sent = Mutex(0)
    private let limit: Int
    init(packets limit: Int) { self.limit = limit }

    /// Whether this send still reaches the device.
    func passes() -> Bool {
        sent.withLock { count in
            count += 1
            return count <= limit
        }
    }
}

/// A transport that stops delivering what it is given once `silence` says so.
struct SilencingTransport: SMPTransport {
    let wrapping: LoopbackTransport
    let silence: SilentAfter

    var maximumPacketSize: Int { wrapping.maximumPacketSize }
    var events: SMPTransportEvents { wrapping.events }
    func connect() async throws(SMPTransportError) { try await wrapping.connect() }
    func send(_ packet: [UInt8]) async throws(SMPTransportError) {
        if silence.passes() { try await wrapping.send(packet) }
    }
    func close() async { await wrapping.close() }
}
