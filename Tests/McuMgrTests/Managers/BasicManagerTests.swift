import SMPTestTraits
import McuMgr
import SMP
import Testing

@Suite("BasicManager against the simulator", .virtualTime)
struct BasicManagerTests {
    @Test func eraseStorageClearsSettingsAndFiles() async throws {
        try await ManagerHarness.with { h async throws in
            try await h.config.write(name: "app/x", value: [7])
            try await h.config.save()
            await h.device.writeFile(at: "/lfs1/a.txt", contents: [1, 2, 3])
            #expect(await h.device.persistedSetting(named: "app/x") == [7])

            try await h.basic.eraseStorage()

            #expect(await h.device.persistedSetting(named: "app/x") == nil)
            #expect(await h.device.file(at: "/lfs1/a.txt") == nil)
            let error = await deviceError { _ = try await h.fs.status(name: "/lfs1/a.txt") }
            #expect(error == .fs(.fileNotFound))
        }
    }
}
