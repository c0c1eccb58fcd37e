import SMPTestTraits
import McuMgr
import SMP
import Testing

@Suite("ConfigManager against the simulator", .virtualTime)
struct ConfigManagerTests {
    @Test func writeReadDeleteRead() async throws {
        try await ManagerHarness.with { h async throws in
            let value: [UInt8] = [0x01, 0x02, 0x03, 0xff]
            try await h.config.write(name: "app/counter", value: value)
            let read = try await h.config.read(name: "app/counter")
            #expect(read.value == value)
            #expect(read.maxSize == nil)

            try await h.config.delete(name: "app/counter")
            let error = await deviceError { _ = try await h.config.read(name: "app/counter") }
            #expect(error == .settings(.keyNotFound))
            #expect(error?.description.contains("SETTINGS_MGMT_ERR_KEY_NOT_FOUND") == true)
        }
    }

    @Test func maxSizeLimitsAndReportsTheClamp() async throws {
        try await ManagerHarness.with({ $0.settingsValueLimit = 16 }) { h async throws in
            let value = Array(UInt8(0)..<UInt8(12))
            try await h.config.write(name: "app/blob", value: value)
            #expect(try await h.config.read(name: "app/blob", maxSize: 4).value == [0, 1, 2, 3])
            let clamped = try await h.config.read(name: "app/blob", maxSize: 1000)
            #expect(clamped.value == value)
            #expect(clamped.maxSize == 16)
        }
    }

    @Test func commitSaveAndLoad() async throws {
        try await ManagerHarness.with { h async throws in
            try await h.config.write(name: "app/mode", value: Array("fast".utf8))
            try await h.config.commit()
            #expect(await h.device.persistedSetting(named: "app/mode") == nil)
            try await h.config.save()
            #expect(await h.device.persistedSetting(named: "app/mode") == Array("fast".utf8))
            try await h.config.load()
            #expect(try await h.config.read(name: "app/mode").value == Array("fast".utf8))
        }
    }

    @Test func tooLongAndUnhandledKeysAreSettingsErrors() async throws {
        try await ManagerHarness.with({ $0.settingsNameLimit = 8; $0.settingsRoots = ["app"] }) { h async throws in
            let long = await deviceError { try await h.config.write(name: "app/abcdefgh", value: [1]) }
            #expect(long == .settings(.keyTooLong))
            let root = await deviceError { _ = try await h.config.read(name: "bt/x") }
            #expect(root == .settings(.rootKeyNotFound))
            #expect(root?.description.contains("SETTINGS_MGMT_ERR_ROOT_KEY_NOT_FOUND") == true)
        }
    }
}
