import CBOR
import McuBoot
import McuMgr
import SMP
import SMPTestSupport
import SMPTestTraits
import Testing

/// An upload that makes no progress ends (reliability issue, defect 1): whatever offsets a device
/// answers with, the upload fails as stalled, naming the offset, within a bound that follows from
/// the retry settings. Before the fix, answers that stayed put or went back restarted sending
/// without counting as failures, so these uploads never ended.
@Suite("Reliability: an upload that makes no progress ends", .virtualTime, .scaledTimeLimit(minutes: 2))
struct UploadStallTests {
    /// How the scripted device answers a chunk: the offset it claims to expect next.
    typealias Answer = @Sendable (_ offset: Int, _ length: Int, _ arrival: Int) -> Int

    static let total = 8 * 1024

    /// Uploads `total` bytes to a device answering every chunk with `answer`; returns the error,
    /// the number of chunk requests the device saw and the virtual time it took.
    static func upload(
        configuration: UploadConfiguration = UploadConfiguration(pipelineDepth: 1), answer: @escaping Answer
    ) async throws -> (error: UploadError?, requests: Int, elapsed: Duration) {
        let clock = VirtualRuntime.currentClock
        let transport = LoopbackTransport(maximumPacketSize: 600)
        let device = await ScriptedDevice.started(transport, clock: clock) { packet, arrival in
            guard let request = try? packet.decodedPayload() else { return .ignore }
            if packet.header.group == SMPGroup.os.rawValue {
                // No parameters: the upload paces itself by the configuration alone.
                return .payload(.textMap(["rc": .unsigned(8)]))
            }
            let offset = request["off"]?.intValue ?? 0
            let length = request["data"]?.bytesValue?.count ?? 0
            return .payload(.textMap(["off": .int(answer(offset, length, arrival))]))
        }
        let client = SMPClient(transport: transport, configuration: .init(timeout: .seconds(1), retries: 1), clock: clock)
        let started = clock.now
        var caught: UploadError?
        do {
            try await ImageManager(client: client).upload(data: [UInt8](repeating: 0xa5, count: total), configuration: configuration)
        } catch {
            caught = error
        }
        let elapsed = clock.now - started
        let requests = await device.received.filter { $0.header.group == SMPGroup.image.rawValue }.count
        await client.close()
        return (caught, requests, elapsed)
    }

    /// Checks that the upload failed as stalled at `offset`, after a bounded number of requests.
    static func expectStalled(
        _ outcome: (error: UploadError?, requests: Int, elapsed: Duration), at offset: Int, configuration: UploadConfiguration,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .stalled(let at, let lastError)? = outcome.error else {
            Issue.record("expected a stall, got \(String(describing: outcome.error))", sourceLocation: sourceLocation)
            return
        }
        #expect(at == offset, sourceLocation: sourceLocation)
        #expect(outcome.error?.description.contains("stalled at byte \(offset)") == true, sourceLocation: sourceLocation)
        #expect("\(lastError)".contains("offset"), sourceLocation: sourceLocation)
        // Each request that makes no progress counts: the bound follows from the failure limit
        // (and the restarts a device that keeps losing the upload is allowed), not from time.
        let bound = (configuration.maximumFailuresWithoutProgress + 2) * (configuration.maximumRestarts + 1) * total / 400
        #expect(outcome.requests <= bound, "\(outcome.requests) requests", sourceLocation: sourceLocation)
        #expect(outcome.elapsed < .seconds(60), "\(outcome.elapsed)", sourceLocation: sourceLocation)
    }

    @Test("a device whose off stays at 512 fails the upload as stalled at 512")
    func offsetStaysPut() async throws {
        let configuration = UploadConfiguration(pipelineDepth: 1)
        let outcome = try await Self.upload(configuration: configuration) { _, _, _ in 512 }
        Self.expectStalled(outcome, at: 512, configuration: configuration)
        // Exactly the first chunk plus one try per allowed failure and the one that ends it.
        #expect(outcome.requests == configuration.maximumFailuresWithoutProgress + 2)
    }

    @Test("a device whose off goes backwards after 2048 fails as stalled at its furthest offset")
    func offsetGoesBackwards() async throws {
        let configuration = UploadConfiguration(pipelineDepth: 1)
        let outcome = try await Self.upload(configuration: configuration) { offset, length, _ in
            offset + length <= 2048 ? offset + length : max(0, offset - 300)
        }
        // Offsets below 2048 keep being answered, but the device never gets past 2048.
        guard case .stalled(let at, _)? = outcome.error else {
            Issue.record("expected a stall, got \(String(describing: outcome.error))")
            return
        }
        #expect(at >= 1500 && at <= 2048, "\(at)")
        Self.expectStalled(outcome, at: at, configuration: configuration)
    }

    @Test("a device cycling between offsets fails as stalled", arguments: [1, 3])
    func offsetCycles(depth: Int) async throws {
        let configuration = UploadConfiguration(pipelineDepth: depth)
        let cycle = [1024, 2048, 512, 3072, 1024]
        let outcome = try await Self.upload(configuration: configuration) { _, _, arrival in cycle[arrival % cycle.count] }
        Self.expectStalled(outcome, at: 3072, configuration: configuration)
    }

    @Test("a device that keeps losing the upload (off 0 again) fails after the allowed restarts")
    func deviceKeepsLosingTheUpload() async throws {
        let configuration = UploadConfiguration(pipelineDepth: 1, maximumRestarts: 2)
        let outcome = try await Self.upload(configuration: configuration) { offset, length, _ in
            offset >= 4096 ? 0 : offset + length
        }
        guard case .stalled(_, let lastError)? = outcome.error else {
            Issue.record("expected a stall, got \(String(describing: outcome.error))")
            return
        }
        #expect("\(lastError)".contains("lost the upload 3 times"))
    }

    @Test("a stalled upgrade fails in state upload and says what the device runs")
    func stalledUpgrade() async throws {
        let clock = VirtualRuntime.currentClock
        let transport = LoopbackTransport(maximumPacketSize: 1024)
        let running = try UpgradeFixtures.runningImage()
        let image = try UpgradeFixtures.image(size: 16 * 1024)
        _ = await ScriptedDevice.started(transport, clock: clock) { packet, _ in
            switch (packet.header.group, packet.header.command) {
            case (1, 0):
                let slot: CBORValue = .textMap([
                    "slot": .int(0), "version": .text("1.0.0"), "hash": .bytes(running.hash), "active": .bool(true),
                    "confirmed": .bool(true), "bootable": .bool(true),
                ])
                return .payload(.textMap(["images": .array([slot])]))
            case (1, 1):
                // Every chunk, the first included, is answered "I hold 512 bytes".
                return .payload(.textMap(["off": .int(512)]))
            default:
                return .payload(.textMap(["rc": .unsigned(8)]))
            }
        }
        let client = SMPClient(transport: transport, configuration: .init(timeout: .seconds(1), retries: 1), clock: clock)
        do {
            _ = try await FirmwareUpgradeManager(client: client).upgrade(
                images: [FirmwareUpgradeImage(image: image)], configuration: UpgradeFixtures.configuration())
            Issue.record("an upgrade whose upload never progressed succeeded")
        } catch {
            #expect(error.state == .upload)
            guard case .upload(.stalled(let offset, _)) = error.reason else {
                Issue.record("expected a stalled upload, got \(error)")
                await client.close()
                return
            }
            #expect(offset == 512)
            #expect(error.description.contains("1.0.0 confirmed"))
        }
        await client.close()
    }
}
