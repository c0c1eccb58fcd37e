import SMPTestTraits
import McuMgr
import SMP
import Testing

@Suite("EnumerationManager against the simulator", .virtualTime)
struct EnumerationManagerTests {
    @Test func countMatchesTheList() async throws {
        try await ManagerHarness.with { h async throws in
            let groups = try await h.enumeration.list()
            #expect(try await h.enumeration.count() == groups.count)
            #expect(Set(groups).isSuperset(of: [0, 1, 2, 3, 4, 8, 9, 10, 63]))
        }
        try await ManagerHarness.with({ $0.offersLogGroup = false }) { h async throws in
            let groups = try await h.enumeration.list()
            #expect(!groups.contains(4))
            #expect(try await h.enumeration.count() == groups.count)
        }
    }

    @Test func singleWalksTheListToItsEnd() async throws {
        try await ManagerHarness.with { h async throws in
            let groups = try await h.enumeration.list()
            var walked: [UInt16] = []
            for index in groups.indices {
                let entry = try await h.enumeration.single(index: index)
                walked.append(entry.group)
                #expect(entry.isLast == (index == groups.count - 1))
            }
            #expect(walked == groups)
            let error = await deviceError { _ = try await h.enumeration.single(index: groups.count) }
            #expect(error == .enumeration(.indexTooLarge))
            #expect(error?.description.contains("ENUM_MGMT_ERR_INDEX_TOO_LARGE") == true)
        }
    }

    @Test func detailsNameTheGroups() async throws {
        try await ManagerHarness.with { h async throws in
            let all = try await h.enumeration.details()
            #expect(all.map(\.group) == (try await h.enumeration.list()))
            #expect(all.first { $0.group == 1 }?.name == "img mgmt")
            #expect(all.first { $0.group == 0 }?.handlers == 9)

            let some = try await h.enumeration.details(groups: [0, 63])
            #expect(Set(some.map(\.group)) == [0, 63])
        }
    }
}
