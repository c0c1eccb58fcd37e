import Crypto
import McuBoot
import McuMgr
import NIOCore
import NIOPosix
import SMP
import SMPSimulator
import SMPUDP
import Synchronization
import Testing

/// Uploads with the session on its transport's event loop: each chunk after the first leaves
/// inside the handling of the answer that made room for it (the upload is a pipeline of the
/// session), and the image arrives intact whatever the link does.
@Suite("Upload engine: a session on its transport's event loop")
struct UploadOnEventLoopTests {
    /// A transport bound to one event loop that hands each packet to a simulated device and
    /// delivers the answers on the loop, recording for every packet sent whether it left while an
    /// answer was being delivered (inside the session's handling of it).
    final class DeviceOnLoopTransport: SMPExecutorBoundTransport {
        let events: SMPTransportEvents
        let boundExecutor: (any SerialExecutor)?
        let currentMaximumPacketSize = 1024
        private let sink: SMPTransportEvents.Continuation
        private let loop: any EventLoop
        private let device: SimulatedDevice
        /// Touched on the loop only.
        private let record = Mutex<(delivering: Bool, sentWhileDelivering: [Bool])>((false, []))

        init(loop: any EventLoop, device: SimulatedDevice) {
            self.loop = loop
            self.device = device
            boundExecutor = loop.executor
            (events, sink) = SMPTransportEvents.makeStream()
        }

        var maximumPacketSize: Int { currentMaximumPacketSize }
        /// For each packet sent, whether it left inside the delivery of an answer.
        var sentWhileDelivering: [Bool] { record.withLock { $0.sentWhileDelivering } }

        func connect() async throws(SMPTransportError) {}
        func close() async { sink.finish() }
        func send(_ packet: [UInt8]) async throws(SMPTransportError) {
            let loop = self.loop
            loop.execute { self.deviceReceives(packet) }
        }

        func sendWithoutSuspending(_ packet: [UInt8]) throws(SMPTransportError) {
            precondition(loop.inEventLoop)
            deviceReceives(packet)
        }

        private func deviceReceives(_ packet: [UInt8]) {
            record.withLock { $0.sentWhileDelivering.append($0.delivering) }
            Task {
                let answers = await device.handle(packet)
                loop.execute { self.deliver(answers) }
            }
        }

        private func deliver(_ answers: [[UInt8]]) {
            for answer in answers {
                record.withLock { $0.delivering = true }
                sink.yield(.received(answer))
                record.withLock { $0.delivering = false }
            }
        }
    }

    @Test("stop-and-wait and pipelined: every chunk after the first leaves inside the handling of an answer", arguments: [1, 4])
    func chunksLeaveFromTheAnswers(depth: Int) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let device = SimulatedDevice(logger: ManagerHarness.quietLogger)
        let transport = DeviceOnLoopTransport(loop: group.next(), device: device)
        let client = SMPClient(transport: transport)
        let image = try UpgradeFixtures.image(size: 48 * 1024)
        let engine = UploadEngine(
            target: ImageUploadTarget(client: client, image: 0, sha: Array(SHA256.hash(data: image.bytes))),
            // Timeouts far beyond any scheduling delay: a resend from the session's timer would be a
            // send outside an answer, and on a loaded machine a 2 s timeout can pass.
            configuration: UploadConfiguration(pipelineDepth: depth, chunkTimeout: .seconds(600), readsDeviceBuffers: false))
        let result: Result<UploadAcknowledgement, UploadError>
        do throws(UploadError) {
            result = .success(try await engine.upload(image.bytes))
        } catch {
            result = .failure(error)
        }
        await client.close()
        try await group.shutdownGracefully()
        #expect(try result.get().nextOffset == image.bytes.count)
        #expect(Array(await device.slotContents(image: 0, slot: 1).prefix(image.bytes.count)) == image.bytes)
        let sent = transport.sentWhileDelivering
        #expect(sent.count >= 48 * 1024 / 1024)
        // The first chunk goes alone from the engine's task; the first `depth` chunks after it fill
        // the window from the session's round after the first answer, then each answer sends one.
        #expect(sent.first == false)
        #expect(sent.dropFirst().allSatisfy { $0 }, "chunks sent from a task instead of the answers: \(sent)")
    }

    struct Outcome {
        let intact: Bool
        /// For each progress report, whether it ran on the socket's event loop.
        let progressOnLoop: [Bool]
    }

    static func upload(
        depth: Int, sessionOnEventLoop: Bool, link: LinkConfiguration = LinkConfiguration(),
        faults: FaultConfiguration = FaultConfiguration(), chunkTimeout: Duration = .seconds(30)
    ) async throws -> Outcome {
        let device = SimulatedDevice(link: link, faults: faults, logger: ManagerHarness.quietLogger)
        let server = try await SimulatorUDPServer.start(device: device, host: "127.0.0.1", port: 0)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let transport = UDPTransport(
            host: "127.0.0.1", port: server.port, maximumPacketSize: 1472, eventLoopGroup: group, sessionOnEventLoop: sessionOnEventLoop)
        let client = SMPClient(transport: transport, configuration: .init(timeout: chunkTimeout, retries: 3))
        let image = try UpgradeFixtures.image(size: 96 * 1024)
        let loop = group.next()
        let progressOnLoop = Mutex<[Bool]>([])
        let uploaded: Result<Void, any Error>
        do {
            try await transport.connect()
            let target = ImageUploadTarget(client: client, image: 0, sha: Array(SHA256.hash(data: image.bytes)))
            let engine = UploadEngine(
                target: target,
                configuration: UploadConfiguration(pipelineDepth: depth, byteAlignment: 4, chunkTimeout: chunkTimeout, chunkRetries: 3))
            _ = try await engine.upload(image.bytes) { _ in
                let onLoop = loop.inEventLoop
                progressOnLoop.withLock { $0.append(onLoop) }
            }
            uploaded = .success(())
        } catch {
            uploaded = .failure(error)
        }
        await client.close()
        await server.close()
        try await group.shutdownGracefully()
        try uploaded.get()
        let contents = await device.slotContents(image: 0, slot: 1)
        return Outcome(intact: Array(contents.prefix(image.bytes.count)) == image.bytes, progressOnLoop: progressOnLoop.withLock { $0 })
    }

    @Test("the engine runs on the session's executor: every progress report comes from the socket's event loop")
    func engineRunsOnTheSessionExecutor() async throws {
        // On its own executor the engine would hop off the loop and back for each chunk.
        let outcome = try await Self.upload(depth: 2, sessionOnEventLoop: true)
        #expect(outcome.intact)
        #expect(!outcome.progressOnLoop.isEmpty)
        #expect(outcome.progressOnLoop.allSatisfy { $0 })
    }

    @Test("over UDP with the session on the event loop, or on its own executor, the image arrives intact", arguments: [
        (1, true), (3, true), (8, true), (1, false), (3, false),
    ])
    func intactOverUDP(depth: Int, sessionOnEventLoop: Bool) async throws {
        var link = LinkConfiguration()
        link.latency = .milliseconds(2)
        let outcome = try await Self.upload(depth: depth, sessionOnEventLoop: sessionOnEventLoop, link: link)
        #expect(outcome.intact)
    }

    @Test("through lost, repeated, reordered and delayed packets each way, the image still arrives intact", arguments: [1, 4])
    func faultsEachWay(depth: Int) async throws {
        var link = LinkConfiguration()
        link.latency = .milliseconds(1)
        var faults = FaultConfiguration()
        faults.seed = UInt64(40 + depth)
        faults.dropPercent = 8
        faults.duplicatePercent = 8
        faults.reorderPercent = 8
        faults.delayPercent = 4
        faults.delay = .milliseconds(30)
        let outcome = try await Self.upload(
            depth: depth, sessionOnEventLoop: true, link: link, faults: faults, chunkTimeout: .milliseconds(400))
        #expect(outcome.intact)
    }
}
