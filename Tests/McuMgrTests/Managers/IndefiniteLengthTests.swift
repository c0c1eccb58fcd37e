import McuBoot
import McuMgr
import SMP
import SMPSimulator
import Testing

/// A default Zephyr build frames every map and array with indefinite length (`0xbf … 0xff`).
@Suite("Managers against indefinite-length maps")
struct IndefiniteLengthTests {
    static func indefinite(_ configuration: inout DeviceConfiguration) { configuration.usesIndefiniteLengthMaps = true }

    @Test func theDeviceReallySendsIndefiniteMaps() async throws {
        try await ManagerHarness.with(Self.indefinite) { h async throws in
            let packet = try await h.client.transceive(.read, group: .os, command: 6, payload: [0xa0], retryPolicy: .resend)
            #expect(packet.payload.first == 0xbf)
            #expect(packet.payload.last == 0xff)
        }
    }

    @Test func echoParametersAndImageList() async throws {
        try await ManagerHarness.with(Self.indefinite) { h async throws in
            #expect(try await h.os.echo("indefinite") == "indefinite")
            #expect(try await h.os.parameters() == McuMgrParameters(bufferSize: 2048, bufferCount: 4))
            let running = try await h.install(version: ImageVersion(3, 1, 4))
            let slots = try await h.image.list()
            #expect(slots.count == 1)
            #expect(slots.first?.hash == running.hash)
            #expect(slots.first?.active == true && slots.first?.confirmed == true)
            #expect(try await h.image.slotInfo().count == 2)
        }
    }

    @Test func nestedMapsAndArraysOfOtherGroups() async throws {
        try await ManagerHarness.with(Self.indefinite) { h async throws in
            #expect(try await h.os.taskStats()["main"]?.stackSize == 512)
            #expect(try await h.os.bootloaderInfo().mode == 3)
            #expect(try await h.stats.list().contains("smp"))
            #expect(try await h.stats.read(group: "flash").fields.keys.contains("erases"))
            #expect(try await h.log.show().logs.first?.entries.isEmpty == false)
            #expect(try await h.log.levelList().count == 5)
            #expect(try await h.enumeration.details().count == (try await h.enumeration.count()))
            #expect(try await h.fs.supportedHashes().count == 2)
            #expect(try await h.shell.execute(["echo", "x"]).output == "x\n")
            let error = await deviceError { _ = try await h.config.read(name: "app/none") }
            #expect(error == .settings(.keyNotFound))
        }
    }

    @Test func fileRoundTrip() async throws {
        try await ManagerHarness.with(Self.indefinite) { h async throws in
            let bytes = FileSystemManagerTests.pattern(10_000)
            try await FileSystemManagerTests.upload(bytes, to: "/lfs1/i.bin", with: h.fs)
            #expect(try await h.fs.download(name: "/lfs1/i.bin") == bytes)
        }
    }
}
