import McuMgr
import SMP
import SMPSimulator
import SMPTestSupport
import SMPTestTraits
import Testing

/// Whether an upload reads the device's buffers (`mcumgr params`, group 0 command 6) before its
/// first chunk: always when it needs them for the depth, and not when the caller fixed the depth
/// and said not to (the CLI with both `--mtu` and `--pipeline-depth`).
@Suite("Upload engine: reading the device's buffers", .virtualTime)
struct UploadDeviceBuffersTests {
    static func parameterReads(_ device: SimulatedDevice) async -> Int {
        await device.requestLog.filter { $0.group == 0 && $0.command == 6 }.count
    }

    static func upload(_ configuration: UploadConfiguration) async throws -> SimulatedDevice {
        let (device, client) = try await UpgradeFixtures.device()
        let image = try UpgradeFixtures.image(size: 8 * 1024)
        try await ImageManager(client: client).upload(data: image.bytes, configuration: configuration)
        let contents = await device.slotContents(image: 0, slot: 1)
        #expect(Array(contents.prefix(image.bytes.count)) == image.bytes)
        await client.close()
        return device
    }

    @Test("a fixed depth with readsDeviceBuffers false: the first request is the first chunk")
    func fixedDepthSkipsTheRead() async throws {
        let device = try await Self.upload(UploadConfiguration(pipelineDepth: 2, readsDeviceBuffers: false))
        #expect(await Self.parameterReads(device) == 0)
        let first = await device.requestLog.first
        #expect(first?.group == 1 && first?.command == 1)
    }

    @Test("the default reads them once, and so does a missing depth even when told not to")
    func defaultAndMissingDepthRead() async throws {
        #expect(await Self.parameterReads(try await Self.upload(UploadConfiguration(pipelineDepth: 2))) == 1)
        #expect(await Self.parameterReads(try await Self.upload(UploadConfiguration(readsDeviceBuffers: false))) == 1)
    }
}
