import Crypto
import Logging
import McuBoot
import McuMgr
import NIOPosix
import SMP
import SMPSimulator
import SMPUDP
import Synchronization
import Testing

/// Uploads over UDP with the session on the socket's event loop (`UDPTransport(sessionOnEventLoop:)`):
/// each answer that says the device expects the chunk the engine has ready sends it from inside
/// the read that received the answer (`UploadChain`). Real sockets and the wall clock, as any test
/// over a socket; the simulator's link adds latency and faults.
@Suite("Upload engine: chunks sent from the answers")
struct ChainedUploadTests {
    /// The messages of a logger.
    final class LogLines: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Keeps every message at `.debug` and above.
    struct RecordingLogHandler: LogHandler {
        let lines: LogLines
        var logLevel: Logger.Level = .debug
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { lines.append(event.message.description) }
    }

    struct Outcome {
        let intact: Bool
        /// Chunks the answers sent, from the engine's closing debug line (nil without that line).
        let chained: Int?
        let chunks: Int?
        let sendsWithoutSuspending: Bool
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
        let lines = LogLines()
        let logger = Logger(label: "upload") { _ in RecordingLogHandler(lines: lines) }
        let image = try UpgradeFixtures.image(size: 96 * 1024)
        let loop = group.next()
        let progressOnLoop = Mutex<[Bool]>([])
        do {
            try await transport.connect()
            let target = ImageUploadTarget(client: client, image: 0, sha: Array(SHA256.hash(data: image.bytes)))
            let engine = UploadEngine(
                target: target,
                configuration: UploadConfiguration(pipelineDepth: depth, byteAlignment: 4, chunkTimeout: chunkTimeout, chunkRetries: 3),
                logger: logger)
            _ = try await engine.upload(image.bytes) { _ in
                let onLoop = loop.inEventLoop
                progressOnLoop.withLock { $0.append(onLoop) }
            }
        } catch {
            await client.close()
            await server.close()
            try? await group.shutdownGracefully()
            throw error
        }
        await client.close()
        await server.close()
        try await group.shutdownGracefully()
        let contents = await device.slotContents(image: 0, slot: 1)
        let summary = lines.all.first { $0.contains("went out from the answers") }?.split(separator: " ")
        return Outcome(
            intact: Array(contents.prefix(image.bytes.count)) == image.bytes,
            chained: summary.flatMap { Int($0[0]) }, chunks: summary.flatMap { Int($0[2]) },
            sendsWithoutSuspending: client.sendsWithoutSuspending, progressOnLoop: progressOnLoop.withLock { $0 })
    }

    @Test("stop-and-wait with the session on the event loop: answers send the next chunks; the image arrives intact")
    func answersSendTheNextChunk() async throws {
        // The engine offers the next chunk right after it sends one; the answer comes 5 ms later.
        var link = LinkConfiguration()
        link.latency = .milliseconds(5)
        let outcome = try await Self.upload(depth: 1, sessionOnEventLoop: true, link: link)
        #expect(outcome.sendsWithoutSuspending)
        #expect(outcome.intact)
        let chained = try #require(outcome.chained)
        let chunks = try #require(outcome.chunks)
        #expect(chunks >= 96 * 1024 / 1444)
        #expect(chained > 0 && chained < chunks, "the first chunk goes alone; later ones from the answers")
    }

    @Test("the engine runs on the session's executor: every progress report comes from the socket's event loop")
    func engineRunsOnTheSessionExecutor() async throws {
        // On its own executor the engine would hop off the loop and back for each chunk (the
        // session's window, the answers' queue): several loop tasks per chunk instead of one.
        let outcome = try await Self.upload(depth: 2, sessionOnEventLoop: true)
        #expect(outcome.intact)
        #expect(!outcome.progressOnLoop.isEmpty)
        #expect(outcome.progressOnLoop.allSatisfy { $0 })
    }

    @Test("pipelined with the session on the event loop: the image arrives intact", arguments: [3, 8])
    func pipelinedOnTheEventLoop(depth: Int) async throws {
        // How many chunks answers send depends on whether the engine waits when they come (on a
        // loaded machine it may still be reading earlier answers); the image must be intact either way.
        var link = LinkConfiguration()
        link.latency = .milliseconds(2)
        let outcome = try await Self.upload(depth: depth, sessionOnEventLoop: true, link: link)
        #expect(outcome.sendsWithoutSuspending)
        #expect(outcome.intact)
        #expect(outcome.chained != nil)
    }

    @Test("without it, the engine sends every chunk itself", arguments: [1, 3])
    func engineSendsWhenNotBound(depth: Int) async throws {
        let outcome = try await Self.upload(depth: depth, sessionOnEventLoop: false)
        #expect(!outcome.sendsWithoutSuspending)
        #expect(outcome.intact)
        #expect(outcome.chained == nil)
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
        #expect(outcome.chained != nil)
    }
}
