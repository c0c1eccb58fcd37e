import GATT
import Logging
import SMP
import SMPTestSupport

/// The far end of an in-memory bearer, driven by a test: reads what the client sends, answers by hand.
final class ScriptedPeer {
    let bearer: MemoryATTBearer
    private var iterator: AsyncStream<ATTBearerEvent>.Iterator

    init(_ bearer: MemoryATTBearer) {
        self.bearer = bearer
        self.iterator = bearer.inbound.makeAsyncIterator()
    }

    /// The next PDU from the client, decoded; nil when the bearer closed.
    func next() async throws -> ATTPDU? {
        guard let event = await iterator.next(), case .pdu(let bytes) = event else { return nil }
        return try ATTPDU(decoding: bytes)
    }

    /// The next event as it came (a PDU's raw bytes, or the close).
    func nextEvent() async -> ATTBearerEvent? {
        await iterator.next()
    }

    func send(_ pdu: ATTPDU) async throws {
        try await bearer.send(pdu.bytes)
    }

    func sendRaw(_ bytes: [UInt8]) async throws {
        try await bearer.send(bytes)
    }
}

/// A GATT client on virtual time with a scripted peer.
struct ClientHarness {
    let client: GATTClient
    let peer: ScriptedPeer

    init(clock: SMPClock, preferredMTU: Int = 498, timeout: Duration = .seconds(30), logger: Logger = quietLogger) {
        let (near, far) = MemoryATTBearer.pair()
        client = GATTClient(
            bearer: near, configuration: GATTClient.Configuration(preferredMTU: preferredMTU, transactionTimeout: timeout),
            clock: GATTClock(clock, taskExecutor: clock.taskExecutor), logger: logger)
        peer = ScriptedPeer(far)
    }
}

let quietLogger: Logger = {
    var logger = Logger(label: "gatt-test")
    logger.logLevel = .critical
    return logger
}()
