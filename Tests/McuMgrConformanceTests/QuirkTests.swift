import McuMgrConformance
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// Each quirk breaks one rule: exactly the checks about that rule fail, with a message naming it.
@Suite("Conformance against a simulator that breaks one rule", .virtualTime)
struct QuirkTests {
    /// The checks each quirk must fail, and words their message must hold.
    static let expected: [SimulatorQuirk: (checks: Set<String>, words: String)] = [
        .wrongSequence: (["framing.sequence"], "sequence number"),
        .wrongOperation: (["framing.v2-header"], "a read is answered with op 1"),
        .noRefusalWhenFull: (["framing.buffer-overflow"], "dropped in silence"),
        .duplicateWrites: (["image.upload-resent-chunk", "transport.lossy-writes"], "written"),
        .v1ErrorsOnly: (["framing.group-error-v2"], "err {group, rc}"),
        .statusInErr: (["framing.unknown-group", "framing.unknown-command"], "top-level rc 8"),
        .wedgesOnBadLength: (["framing.length-too-long"], "wedged"),
        .extraKeys: (["cbor.response-keys"], "exactly the documented keys"),
        .refusesUnknownKeys: (["cbor.unknown-keys"], "unknown keys must be ignored"),
        .refusesIndefiniteMaps: (["cbor.indefinite-map"], "indefinite-length maps must be read"),
        .lenientTypes: (["cbor.wrong-type"], "wrong type must be refused"),
        .noResume: (["image.upload-sha-resume"], "instead of resuming"),
        .echoWriteOnly: (["os.echo-read"], "answered as a read and as a write"),
    ]

    @Test("every quirk has its expectation")
    func everyQuirkCovered() {
        #expect(Set(Self.expected.keys) == Set(SimulatorQuirk.allCases))
    }

    @Test("exactly the checks about the broken rule fail", arguments: SimulatorQuirk.allCases)
    func quirk(_ quirk: SimulatorQuirk) async throws {
        var configuration = DeviceConfiguration.conformance
        configuration.quirks = [quirk]
        // Requests wait for buffers only when answers take time.
        let link = quirk == .noRefusalWhenFull ? LinkConfiguration(latency: .milliseconds(20)) : LinkConfiguration()
        let fixture = await ConformanceFixture.make(configuration: configuration, link: link)
        let before = await fixture.snapshot()
        let report = await fixture.run()
        let expectation = try #require(Self.expected[quirk])
        #expect(report.ids(.fail) == expectation.checks, "\(quirk): \(report.results.filter { $0.status == .fail }.map { "\($0.id): \($0.observed)" })")
        for id in expectation.checks {
            let observed = report.result(id)?.observed ?? ""
            #expect(observed.contains(expectation.words), "\(id): \(observed)")
        }
        #expect(report.stopped == nil)
        #expect(await fixture.snapshot() == before)
    }
}
