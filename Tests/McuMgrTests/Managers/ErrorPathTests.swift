import SMPTestTraits
import McuBoot
import McuMgr
import SMP
import SMPSimulator
import Testing

/// Each group's own errors arrive typed and named after the group's C enum.
@Suite("Manager error paths", .virtualTime)
struct ErrorPathTests {
    @Test func testWithAnUnknownHash() async throws {
        try await ManagerHarness.with { h async throws in
            try await h.install(version: ImageVersion(1, 0, 0))
            let error = await deviceError { _ = try await h.image.test(hash: [UInt8](repeating: 0xab, count: 32)) }
            #expect(error == .image(.hashNotFound))
            guard case .image(let code)? = error else { return }
            #expect(code.name == "IMG_MGMT_ERR_HASH_NOT_FOUND")
            #expect(SMPError.device(.image(code)).description.contains("IMG_MGMT_ERR_HASH_NOT_FOUND"))
        }
    }

    @Test func settingsReadOfAMissingKey() async throws {
        try await ManagerHarness.with { h async throws in
            let error = await deviceError { _ = try await h.config.read(name: "app/missing") }
            #expect(error == .settings(.keyNotFound))
            #expect(error?.description.contains("SETTINGS_MGMT_ERR_KEY_NOT_FOUND") == true)
        }
    }

    @Test func fsDownloadOfAMissingFile() async throws {
        try await ManagerHarness.with { h async throws in
            let error = await deviceError { _ = try await h.fs.download(name: "/lfs1/nothing-here") }
            #expect(error == .fs(.fileNotFound))
            #expect(error?.description.contains("FS_MGMT_ERR_FILE_NOT_FOUND") == true)
        }
    }

    @Test func smpV1TranslatesGroupErrorsToStatuses() async throws {
        try await ManagerHarness.with { h async throws in
            await h.client.setVersion(.v1)
            try await h.install(version: ImageVersion(1, 0, 0))
            let error = await deviceError { _ = try await h.image.test(hash: [UInt8](repeating: 1, count: 32)) }
            #expect(error?.status == .unknown)
            let missing = await deviceError { _ = try await h.fs.status(name: "/lfs1/none") }
            #expect(missing?.status == .noEntry)
            #expect(missing?.description.contains("MGMT_ERR_ENOENT") == true)
        }
    }
}
