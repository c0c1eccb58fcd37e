import SMPTestTraits
import McuBoot
import McuMgr
import SMP
import SMPSimulator
import SMPTestSupport
import Testing

@Suite("Upload engine: pipelining, alignment and faults against the simulator", .virtualTime)
struct UploadRobustnessTests {
    /// Uploads `image` (upload-only) and checks that slot 1 holds exactly its bytes.
    private func uploadAndCheck(
        _ image: McuBootImage, device: SimulatedDevice, client: SMPClient,
        depth: Int? = nil, alignment: Int = 1, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        _ = try await FirmwareUpgradeManager(client: client).upgrade(
            images: [FirmwareUpgradeImage(image: image)],
            configuration: UpgradeFixtures.configuration(mode: .uploadOnly, depth: depth, alignment: alignment)
        )
        let contents = await device.slotContents(image: 0, slot: 1)
        #expect(Array(contents.prefix(image.bytes.count)) == image.bytes, sourceLocation: sourceLocation)
        let secondary = await device.slotStates().first { $0.image == 0 && $0.slot == 1 }
        #expect(secondary?.hash == image.hash, sourceLocation: sourceLocation)
    }

    /// Bytes of upload payloads the device answered (not those lost while it was away), relative to the image size.
    private func uploadVolume(_ device: SimulatedDevice, image: McuBootImage) async -> Double {
        let total = await UpgradeFixtures.uploadRequests(device).filter { $0.outcome == .success }.reduce(0) { $0 + $1.length }
        return Double(total) / Double(image.bytes.count)
    }

    @Test("depths 1, 2, 4, 8 with alignments 1 and 4 give byte-identical slots", arguments: [1, 2, 4, 8], [1, 4])
    func depthsAndAlignments(depth: Int, alignment: Int) async throws {
        var configuration = DeviceConfiguration()
        configuration.bufferCount = 9
        // Latency long enough that a second request reaches the device while the first is held, even on a loaded machine.
        let link = LinkConfiguration(latency: .milliseconds(10))
        let (device, client) = try await UpgradeFixtures.device(configuration: configuration, link: link)
        let image = try UpgradeFixtures.image(size: 48 * 1024 + 13)
        try await uploadAndCheck(image, device: device, client: client, depth: depth, alignment: alignment)
        // The device holds a buffer until a response is out, so it may count one more than the client keeps in flight.
        let peak = await device.maximumRequestsInFlight
        if depth > 1 {
            #expect(peak > 1, "depth \(depth) never had more than one request at the device")
        }
        // On a clean link nothing is sent twice: the requests carry the image plus ~1 % of CBOR and headers.
        let uploads = await UpgradeFixtures.uploadRequests(device)
        #expect(uploads.allSatisfy { $0.outcome == .success })
        #expect(await uploadVolume(device, image: image) < 1.03)
    }

    @Test("chunks fill the device's buffer: no request exceeds buf_size, and most are close to it")
    func chunkSizing() async throws {
        var configuration = DeviceConfiguration()
        configuration.bufferSize = 512
        let (device, client) = try await UpgradeFixtures.device(configuration: configuration)
        let image = try UpgradeFixtures.image(size: 20 * 1024)
        try await uploadAndCheck(image, device: device, client: client, depth: 1, alignment: 4)
        let uploads = await UpgradeFixtures.uploadRequests(device)
        #expect(uploads.allSatisfy { $0.length + 8 <= 512 })
        #expect(uploads.dropFirst().dropLast().allSatisfy { $0.length + 8 > 512 - 8 })
    }

    @Test("10 % of packets dropped in both directions")
    func droppedPackets() async throws {
        var faults = FaultConfiguration()
        faults.dropPercent = 10
        faults.seed = 42
        let (device, client) = try await UpgradeFixtures.device(faults: faults)
        let image = try UpgradeFixtures.image(size: 64 * 1024)
        try await uploadAndCheck(image, device: device, client: client, depth: 3)
    }

    @Test("duplicated and reordered packets")
    func duplicatedAndReordered() async throws {
        var faults = FaultConfiguration()
        faults.duplicatePercent = 10
        faults.reorderPercent = 10
        faults.seed = 7
        let (device, client) = try await UpgradeFixtures.device(faults: faults)
        let image = try UpgradeFixtures.image(size: 64 * 1024)
        try await uploadAndCheck(image, device: device, client: client, depth: 3)
    }

    @Test("a disconnect at 50 % resumes where the device stands, not from zero")
    func disconnectHalfway() async throws {
        let image = try UpgradeFixtures.image(size: 64 * 1024)
        var faults = FaultConfiguration()
        faults.disconnectAtUploadOffset = image.bytes.count / 2
        faults.reconnectDelay = .milliseconds(300)
        let (device, client) = try await UpgradeFixtures.device(faults: faults)
        try await uploadAndCheck(image, device: device, client: client, depth: 3)
        #expect(await uploadVolume(device, image: image) < 1.3)
    }

    @Test("the link comes back from a drop with a smaller packet size: the upload re-reads it and the slot is byte-identical")
    func reconnectWithSmallerPackets() async throws {
        let image = try UpgradeFixtures.image(size: 64 * 1024)
        var faults = FaultConfiguration()
        faults.disconnectAtUploadOffset = image.bytes.count / 2
        faults.reconnectDelay = .milliseconds(300)
        let (device, client, link) = try await UpgradeFixtures.deviceAndLink(faults: faults, maximumPacketSize: 2048)
        // While the link is down, it shrinks to 512-byte packets (as a BLE link may come back with a smaller MTU).
        let shrink = client.clock.task {
            while link.device.isConnected { try? await client.clock.sleep(for: .milliseconds(1)) }
            link.device.maximumPacketSize = 512
        }
        try await uploadAndCheck(image, device: device, client: client, depth: 3)
        await shrink.value
        let uploads = await UpgradeFixtures.uploadRequests(device)
        let early = uploads.prefix { $0.length + 8 > 512 }
        #expect(!early.isEmpty, "chunks before the drop filled the 2048-byte packets")
        // After the drop, every chunk fits the new packet size, and the upload did not start over.
        #expect(uploads.dropFirst(early.count).allSatisfy { $0.length + 8 <= 512 })
        #expect(await uploadVolume(device, image: image) < 1.3)
    }

    @Test("a device reset at 30 % that keeps its upload state: the upload resumes from its offset")
    func resetKeepingState() async throws {
        let image = try UpgradeFixtures.image(size: 64 * 1024)
        var configuration = DeviceConfiguration()
        configuration.keepsUploadStateAcrossReset = true
        var faults = FaultConfiguration()
        faults.resetAtUploadOffset = image.bytes.count * 3 / 10
        let (device, client) = try await UpgradeFixtures.device(configuration: configuration, faults: faults)
        try await uploadAndCheck(image, device: device, client: client, depth: 3)
        #expect(await device.bootCount == 2)
        #expect(await uploadVolume(device, image: image) < 1.2)
    }

    @Test("a device reset at 30 % that loses its upload state (as Zephyr does): the upload starts again and completes")
    func resetLosingState() async throws {
        let image = try UpgradeFixtures.image(size: 64 * 1024)
        var faults = FaultConfiguration()
        faults.resetAtUploadOffset = image.bytes.count * 3 / 10
        let (device, client) = try await UpgradeFixtures.device(faults: faults)
        try await uploadAndCheck(image, device: device, client: client, depth: 3)
        #expect(await device.bootCount == 2)
    }

    @Test("a device with fewer buffers than the pipeline depth", arguments: [BufferOverflowPolicy.answerNoMemory, .drop])
    func fewerBuffersThanDepth(policy: BufferOverflowPolicy) async throws {
        var configuration = DeviceConfiguration()
        configuration.bufferCount = 2
        var link = LinkConfiguration(latency: .milliseconds(2))
        link.bufferOverflow = policy
        let (device, client) = try await UpgradeFixtures.device(configuration: configuration, link: link)
        let image = try UpgradeFixtures.image(size: 32 * 1024)
        try await uploadAndCheck(image, device: device, client: client, depth: 8)
    }
}
