import DequeModule
import Hex
import Logging

/// One SMP session with a device, and the one owner of everything about its link: sequence
/// numbers, the requests in flight and their timeouts, the in-flight window (narrowed when the
/// device runs out of buffers, widened again as answers come), the device's buffer size and
/// count, the transport's packet sizes, and reconnecting.
///
/// Responses are matched by sequence number in any order; an idempotent request is resent with
/// the same sequence number after a timeout; a request that is not idempotent never is. Managers
/// stay stateless and share one client. All time is read from ``clock``.
///
/// There are three ways to send:
/// - ``send(_:options:)`` with a typed request (``SMPRequest``): every command the managers know.
///   The answer comes back decoded, a device error is thrown.
/// - ``request(_:group:command:payload:retryPolicy:options:)`` with a CBOR map: commands without
///   a request type (application groups, tools). The answer map comes back as it is.
/// - ``attach(_:)`` an ``SMPPipeline``: many requests in flight at once (an upload's chunks). The
///   session asks the pipeline for the next request whenever its window has room and hands it
///   each outcome in arrival order.
/// All three share one path: a request takes a window slot, is registered with its timer, and
/// leaves through the transport; a refusal for lack of room (busy, `MGMT_ERR_ENOMEM`) is handled
/// in one place (`SMPClient+Refusals.swift`) whichever way it was sent.
///
/// Over a transport that offers its executor (``SMPExecutorBoundTransport``, e.g. UDP once
/// SwiftNIO runs Swift concurrency), the session runs on that executor: answers are handled
/// where they arrive, and a pipeline's next request leaves inside the handling of the answer
/// before it. Otherwise it runs on an executor of its own and sends through one ordered outbox.
public actor SMPClient {
    /// How the client talks to the device.
    public struct Configuration: Sendable {
        /// The protocol version requests are sent with.
        public var version: SMPVersion
        /// How long to wait for each response before resending.
        public var timeout: Duration
        /// How many times an idempotent request is resent after its first try before it fails with `SMPError.timeout`.
        public var retries: Int
        /// How many requests may wait for their responses at once (1–255).
        public var maximumInFlight: Int
        /// How a dropped link is brought back.
        public var reconnect: SMPReconnectPolicy

        /// Makes a configuration; by default SMP v2, 5 s timeout, 2 retries, one request in flight.
        public init(
            version: SMPVersion = .v2, timeout: Duration = .seconds(5), retries: Int = 2, maximumInFlight: Int = 1,
            reconnect: SMPReconnectPolicy = SMPReconnectPolicy()
        ) {
            self.version = version
            self.timeout = timeout
            self.retries = retries
            self.maximumInFlight = maximumInFlight
            self.reconnect = reconnect
        }
    }

    /// The time source of this session and of everything running on it (uploads, upgrades).
    public nonisolated let clock: SMPClock
    /// The current configuration.
    public private(set) var configuration: Configuration
    /// The device's SMP buffers once ``negotiate(reassemblyBufferSize:)`` has read them.
    public internal(set) var deviceBuffers: SMPDeviceBuffers?
    /// How many requests may be in flight now: `configuration.maximumInFlight`, or fewer while
    /// the device has been short of buffers.
    public internal(set) var window: Int

    nonisolated let transport: any SMPTransport
    /// The transport, when the session runs on its executor.
    nonisolated let boundTransport: (any SMPExecutorBoundTransport)?
    /// The transport's executor this session runs on, if any.
    nonisolated let boundExecutor: (any SerialExecutor)?
    /// Provides the session's own executor when the transport offers none.
    private nonisolated let lane = SMPClientLane()
    let logger: Logger
    var reassemblyBufferSize: Int?
    var hasNegotiated = false
    /// The requests in flight, by sequence number.
    var pending: [UInt8: PendingRequest] = [:]
    /// Window slots taken (requests in flight, and requests holding a slot on their way out).
    var inFlight = 0
    var slotWaiters: [(token: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    var timer: (task: Task<Void, Never>, target: SMPInstant)?
    var reconnection: Task<Result<Void, SMPError>, Never>?
    var answersSinceWindowChange = 0
    var windowProbeInterval = SMPClient.initialWindowProbeInterval
    /// The last token handed out when the window last narrowed: refusals of requests submitted
    /// up to then were sent under the wider window and narrow it no further.
    var narrowedThroughToken: UInt64 = 0
    /// Refusals in a row of pipelined requests: how long the next hold lasts.
    var consecutiveRefusals = 0
    /// Until when pipelines send nothing after a refusal, and the task that ends the hold.
    var hold: (until: SMPInstant, task: Task<Void, Never>)?
    /// The attached pipelines, in attachment order.
    var pipelines: [any SMPPipeline] = []
    /// Whether pipelines are being asked for requests now (an outcome delivered meanwhile asks
    /// again when that round ends, instead of starting a round inside it).
    var isPumping = false
    var needsPump = false
    /// Requests registered and not yet handed to a transport that sends asynchronously, in order.
    var outbox: Deque<(sequence: UInt8, entry: PendingRequest)> = []
    var isFlushing = false
    /// The transport's packet size as last read, for pipelines over a transport that is not bound.
    var transportPacketLimit: Int?
    private var nextSequence: UInt8 = 0
    private var receiver: Task<Void, Never>?
    /// Whether the transport hands events straight to `handle(_:)` (a session on its executor).
    private var receivesDirectly = false
    private var tokens: UInt64 = 0
    var isClosed = false
    /// Whether the device has answered anything in this session (see `SMPTransportEvent.unreachable`).
    var hasHeardFromDevice = false

    /// Makes a session over `transport`; the session is the transport's only event consumer.
    public init(
        transport: any SMPTransport, configuration: Configuration = Configuration(), clock: SMPClock = .continuous,
        logger: Logger = Logger(label: "smp")
    ) {
        self.transport = transport
        if let bound = transport as? any SMPExecutorBoundTransport, let executor = bound.boundExecutor {
            boundTransport = bound
            boundExecutor = executor
        } else {
            boundTransport = nil
            boundExecutor = nil
        }
        self.configuration = configuration
        self.configuration.maximumInFlight = Self.clampedWindow(configuration.maximumInFlight)
        self.configuration.retries = max(configuration.retries, 0)
        self.window = self.configuration.maximumInFlight
        self.clock = clock
        self.logger = logger
    }

    /// The transport's executor when it offers one, else the session's own.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        boundExecutor?.asUnownedSerialExecutor() ?? lane.unownedExecutor
    }

    /// Changes how many requests may be in flight (clamped to 1–255); the window starts there again.
    public func setMaximumInFlight(_ count: Int) {
        configuration.maximumInFlight = Self.clampedWindow(count)
        window = configuration.maximumInFlight
        answersSinceWindowChange = 0
        windowProbeInterval = Self.initialWindowProbeInterval
        wakeSlotWaiters()
        pumpPipelines()
        flushLater()
    }

    /// Changes the per-request timeout and retry count.
    public func setTimeout(_ timeout: Duration, retries: Int) {
        configuration.timeout = timeout
        configuration.retries = max(retries, 0)
    }

    /// Changes the protocol version of later requests.
    public func setVersion(_ version: SMPVersion) {
        configuration.version = version
    }

    static func clampedWindow(_ count: Int) -> Int { min(max(count, 1), 255) }

    /// Fails every request in flight and closes the transport.
    public func close() async {
        guard !isClosed else { return }
        isClosed = true
        for (sequence, entry) in pending {
            finish(sequence, token: entry.token, with: .failure(.closed))
        }
        pipelines.removeAll()
        outbox.removeAll()
        releaseSlotWaiters()
        receiver?.cancel()
        timer?.task.cancel()
        timer = nil
        hold?.task.cancel()
        hold = nil
        await transport.close()
    }

    // MARK: - Requests in flight

    func nextToken() -> UInt64 {
        tokens &+= 1
        return tokens
    }

    /// The last token handed out (tokens only grow).
    var lastToken: UInt64 { tokens }

    /// The next sequence number not in use, counting up and wrapping 255 → 0.
    func allocateSequence() -> UInt8 {
        while true {
            let sequence = nextSequence
            nextSequence &+= 1
            if pending[sequence] == nil { return sequence }
        }
    }

    // MARK: - Receiving

    /// Starts taking the transport's events (once): where they are yielded when the session runs
    /// on the transport's executor, else on a task of the session's.
    func startReceiving() {
        guard receiver == nil, !receivesDirectly else { return }
        let events = transport.events
        if boundTransport != nil {
            // The transport yields on this session's executor: each event is handled right there.
            receivesDirectly = true
            events.deliverDirectly { [weak self] event in
                self?.assumeIsolated { $0.handle(event) }
            }
            return
        }
        receiver = clock.task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.handleAndFlush(event)
            }
        }
    }

    /// Whether the session takes the transport's events yet.
    var isReceiving: Bool { receiver != nil || receivesDirectly }

    private func handleAndFlush(_ event: SMPTransportEvent) async {
        handle(event)
        await flushOutbox()
    }

    private func handle(_ event: SMPTransportEvent) {
        switch event {
        case .received(let bytes):
            receive(bytes)
        case .disconnected(let reason):
            logger.debug("transport disconnected: \(reason)")
            for (sequence, entry) in pending {
                finish(sequence, token: entry.token, with: .failure(.transport(.disconnected(reason: reason))))
            }
        case .connected:
            logger.debug("transport connected")
        case .unreachable(let reason):
            // Before any answer, a refusal means no device is there (a wrong address or port, a
            // device that is off): fail at once instead of after every timeout and retry. After
            // one, the device is rebooting or its stack restarting: a lost packet, which the
            // timers, an upload's resume and an upgrade's wait for the reset ride out.
            guard !hasHeardFromDevice else {
                logger.debug("the network refused a packet (\(reason)); the device answered before: waiting for it")
                return
            }
            logger.debug("the network refused a packet before the device ever answered: \(reason)")
            for (sequence, entry) in pending {
                finish(sequence, token: entry.token, with: .failure(.transport(.unreachable(reason))))
            }
        }
    }

    private func receive(_ bytes: [UInt8]) {
        let packet: SMPPacket
        do {
            packet = try SMPPacket(decoding: bytes)
        } catch {
            // An answer that arrived but is malformed (its length field lies) ends the request it
            // answers at once, as an invalid response; one that answers nothing is dropped.
            if let header = try? SMPHeader(decoding: bytes), header.operation.isResponse,
               let entry = pending[header.sequence], entry.group.rawValue == header.group, entry.command == header.command {
                finish(header.sequence, token: entry.token, with: .failure(.invalidResponse(
                    "the answer to \(entry.group) command \(entry.command) is malformed: \(error)")))
                return
            }
            logger.warning("dropping an undecodable packet of \(bytes.count) bytes: \(error)")
            return
        }
        let header = packet.header
        logFrame("<-", header, bytes)
        hasHeardFromDevice = true
        guard header.operation.isResponse else {
            logger.warning("dropping a request from the device: \(describe(header))")
            return
        }
        guard let entry = pending[header.sequence] else {
            logger.debug("ignoring a response with unexpected seq \(header.sequence) (late or duplicate)")
            return
        }
        guard entry.group.rawValue == header.group, entry.command == header.command else {
            logger.debug("ignoring a response for seq \(header.sequence) of another command: \(describe(header))")
            return
        }
        finish(header.sequence, token: entry.token, with: .success(readForRefusal(packet, answering: entry)))
    }

    /// Logs one frame: its header at `debug`, and at `trace` its bytes in hex too.
    func logFrame(_ direction: String, _ header: SMPHeader, _ bytes: [UInt8]) {
        if logger.logLevel <= .trace {
            logger.trace("\(direction) \(describe(header)): \(bytes.hexString)")
        } else {
            logger.debug("\(direction) \(describe(header))")
        }
    }

    func describe(_ header: SMPHeader) -> String {
        "seq \(header.sequence) op \(header.operation.rawValue) v\(header.version.rawValue + 1) \(SMPGroup(rawValue: header.group)) cmd \(header.command) len \(header.length)"
    }
}
