import SMPTestTraits
import McuMgr
import SMP
import Testing

@Suite("StatsManager against the simulator", .virtualTime)
struct StatsManagerTests {
    @Test func listNamesTheGroups() async throws {
        try await ManagerHarness.with { h async throws in
            #expect(try await h.stats.list() == ["smp_svr_stats", "smp", "flash"])
        }
    }

    @Test func countersIncreaseBetweenReads() async throws {
        try await ManagerHarness.with { h async throws in
            let first = try await h.stats.read(group: "smp")
            #expect(first.name == "smp")
            #expect(Set(first.fields.keys) == ["rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "errors"])
            _ = try await h.os.echo("traffic")
            let second = try await h.stats.read(group: "smp")
            let before = try #require(first.fields["rx_packets"])
            let after = try #require(second.fields["rx_packets"])
            #expect(after >= before + 2)
            #expect(second.fields["rx_bytes"]! > first.fields["rx_bytes"]!)
        }
    }

    @Test func unknownGroupIsAStatsError() async throws {
        try await ManagerHarness.with { h async throws in
            let error = await deviceError { _ = try await h.stats.read(group: "nope") }
            #expect(error == .stats(.invalidGroup))
            #expect(error?.description.contains("STAT_MGMT_ERR_INVALID_GROUP") == true)
        }
    }
}
