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
/// Over a transport that offers its executor (``SMPExecutorBoundTransport``, e.g. UDP once
/// SwiftNIO runs Swift concurrency), the session runs on that executor: answers are handled
/// where they arrive, and a completion can send the next request at once with
/// ``submitWithoutSuspending(_:group:command:payload:retryPolicy:options:completion:)``.
/// Otherwise it runs on an executor of its own.
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
    var pending: [UInt8: PendingRequest] = [:]
    var inFlight = 0
    var slotWaiters: [(token: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    var timer: (task: Task<Void, Never>, target: SMPInstant)?
    var reconnection: Task<Result<Void, SMPError>, Never>?
    var answersSinceWindowChange = 0
    var windowProbeInterval = SMPClient.initialWindowProbeInterval
    /// The last token handed out when the window last narrowed: refusals of requests submitted
    /// up to then were sent under the wider window and narrow it no further.
    var narrowedThroughToken: UInt64 = 0
    private var nextSequence: UInt8 = 0
    private var receiver: Task<Void, Never>?
    /// Whether the transport hands events straight to `handle(_:)` (a session on its executor).
    private var receivesDirectly = false
    private var tokens: UInt64 = 0
    var isClosed = false

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

    /// Whether ``submitWithoutSuspending(_:group:command:payload:retryPolicy:options:completion:)``
    /// can send: the session runs on its transport's executor.
    public nonisolated var sendsWithoutSuspending: Bool { boundTransport != nil }

    /// Changes how many requests may be in flight (clamped to 1–255); the window starts there again.
    public func setMaximumInFlight(_ count: Int) {
        configuration.maximumInFlight = Self.clampedWindow(count)
        window = configuration.maximumInFlight
        answersSinceWindowChange = 0
        windowProbeInterval = Self.initialWindowProbeInterval
        wakeSlotWaiters()
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

    // MARK: - Sending

    /// Puts one request on its way and returns once the transport has it; `completion` receives
    /// the answer packet (whatever its status), or the error that ended the request.
    ///
    /// Requests submitted one after the other by one task leave in that order, which a pipelined
    /// upload needs. `retryPolicy` says whether the request may be resent on a timeout.
    public func submit(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, payload: [UInt8],
        retryPolicy: SMPRetryPolicy, options: SMPRequestOptions = SMPRequestOptions(),
        completion: @escaping @Sendable (Result<SMPPacket, SMPError>) -> Void
    ) async throws(SMPError) -> SMPSentRequest {
        if isClosed { throw .closed }
        if Task.isCancelled { throw .cancelled }
        startReceiving()
        let limit = await packetLimit()
        let size = SMPHeader.size + payload.count
        guard size <= limit else { throw .requestTooLarge(size: size, limit: limit) }

        try await acquireSlot()
        let (sent, bytes) = register(
            operation, group: group, command: command, payload: payload, retryPolicy: retryPolicy, options: options,
            completion: completion
        )
        if let boundTransport {
            send(bytes, of: sent, through: boundTransport)
        } else {
            do {
                try await transport.send(bytes)
            } catch {
                finish(sent.sequence, token: sent.token, with: .failure(.transport(error)))
            }
        }
        return sent
    }

    /// Puts one request on its way without suspending, for a completion that has the next request
    /// ready (an upload's next chunk); `nil` when it cannot go now: the session does not run on its
    /// transport's executor (``sendsWithoutSuspending``), it is closed or not receiving yet, the
    /// window is full, or the request exceeds the packet limit (submit it with
    /// ``submit(_:group:command:payload:retryPolicy:options:completion:)`` then). A transport error
    /// ends the request through `completion`, as in `submit`.
    public func submitWithoutSuspending(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, payload: [UInt8],
        retryPolicy: SMPRetryPolicy, options: SMPRequestOptions = SMPRequestOptions(),
        completion: @escaping @Sendable (Result<SMPPacket, SMPError>) -> Void
    ) -> SMPSentRequest? {
        guard let boundTransport, !isClosed, receivesDirectly, inFlight < window, slotWaiters.isEmpty,
              SMPHeader.size + payload.count <= packetLimit(transportLimit: boundTransport.currentMaximumPacketSize)
        else { return nil }
        inFlight += 1
        let (sent, bytes) = register(
            operation, group: group, command: command, payload: payload, retryPolicy: retryPolicy, options: options,
            completion: completion
        )
        send(bytes, of: sent, through: boundTransport)
        return sent
    }

    /// Sends a registered request from the transport's executor; a failure ends it.
    private func send(_ bytes: [UInt8], of request: SMPSentRequest, through boundTransport: any SMPExecutorBoundTransport) {
        do {
            try boundTransport.sendWithoutSuspending(bytes)
        } catch {
            finish(request.sequence, token: request.token, with: .failure(.transport(error)))
        }
    }

    /// Enters a request that holds a window slot into the requests in flight, arms its timer, and
    /// returns its packet.
    private func register(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, payload: [UInt8], retryPolicy: SMPRetryPolicy,
        options: SMPRequestOptions, completion: @escaping @Sendable (Result<SMPPacket, SMPError>) -> Void
    ) -> (request: SMPSentRequest, bytes: [UInt8]) {
        let sequence = allocateSequence()
        let token = nextToken()
        let header = SMPHeader(
            version: configuration.version, operation: operation, length: UInt16(payload.count),
            group: group.rawValue, sequence: sequence, command: command
        )
        let timeout = options.timeout ?? configuration.timeout
        let resends = retryPolicy == .resend ? max(options.retries ?? configuration.retries, 0) : 0
        let now = clock.now
        let overall = options.deadline.map { now + $0 }
        var firstDeadline = now + timeout
        if let overall { firstDeadline = min(firstDeadline, overall) }
        let entry = PendingRequest(
            token: token, group: group, command: command, bytes: header.packet(payload: payload), timeout: timeout,
            resends: resends, deadline: firstDeadline, overallDeadline: overall, completion: completion
        )
        pending[sequence] = entry
        armTimer()
        logger.trace("-> \(describe(header))")
        return (SMPSentRequest(sequence: sequence, token: token), entry.bytes)
    }

    /// Sends one request and waits for its answer packet, whatever its status.
    public func transceive(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, payload: [UInt8],
        retryPolicy: SMPRetryPolicy, options: SMPRequestOptions = SMPRequestOptions()
    ) async throws(SMPError) -> SMPPacket {
        let slot = ResponseSlot()
        let sent = try await submit(
            operation, group: group, command: command, payload: payload, retryPolicy: retryPolicy, options: options
        ) { slot.deliver($0) }
        let clock = self.clock
        let result = await withTaskCancellationHandler {
            await slot.wait()
        } onCancel: {
            slot.deliver(.failure(.cancelled))
            clock.task { await self.cancel(sent) }
        }
        return try result.get()
    }

    /// Stops waiting for a request: its completion receives `SMPError.cancelled`, its window slot
    /// is freed, and a late answer is ignored.
    public func cancel(_ request: SMPSentRequest) {
        finish(request.sequence, token: request.token, with: .failure(.cancelled))
    }

    /// Fails every request in flight and closes the transport.
    public func close() async {
        guard !isClosed else { return }
        isClosed = true
        for (sequence, entry) in pending {
            finish(sequence, token: entry.token, with: .failure(.closed))
        }
        for waiter in slotWaiters { waiter.continuation.resume() }
        slotWaiters.removeAll()
        receiver?.cancel()
        timer?.task.cancel()
        timer = nil
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
    private func allocateSequence() -> UInt8 {
        while true {
            let sequence = nextSequence
            nextSequence &+= 1
            if pending[sequence] == nil { return sequence }
        }
    }

    func finish(_ sequence: UInt8, token: UInt64, with result: Result<SMPPacket, SMPError>) {
        guard let entry = pending[sequence], entry.token == token else { return }
        pending[sequence] = nil
        releaseSlot(answered: (try? result.get()) != nil)
        entry.completion(result)
    }

    // MARK: - Receiving

    private func startReceiving() {
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
                await self.handle(event)
            }
        }
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
        logger.trace("<- \(describe(header))")
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
        // With a window wider than 1, every answer is read here for a refusal (ENOMEM, busy);
        // the packet keeps what was decoded, so its reader does not decode it again.
        var answer = packet
        if configuration.maximumInFlight > 1 {
            let read = packet.keepingDecodedPayload()
            answer = read.packet
            if let payload = read.payload, refusesForLackOfRoom(payload) { deviceRefused(entry.token) }
        }
        finish(header.sequence, token: entry.token, with: .success(answer))
    }

    func describe(_ header: SMPHeader) -> String {
        "seq \(header.sequence) op \(header.operation.rawValue) v\(header.version.rawValue + 1) \(SMPGroup(rawValue: header.group)) cmd \(header.command) len \(header.length)"
    }
}

/// A request waiting for its response (touched only on the client actor).
final class PendingRequest {
    let token: UInt64
    let group: SMPGroup
    let command: UInt8
    let bytes: [UInt8]
    let timeout: Duration
    /// Resends still allowed.
    var resends: Int
    /// When the current attempt times out.
    var deadline: SMPInstant
    /// When the request fails whatever its resends, if set.
    let overallDeadline: SMPInstant?
    var attempts = 1
    let completion: @Sendable (Result<SMPPacket, SMPError>) -> Void

    init(
        token: UInt64, group: SMPGroup, command: UInt8, bytes: [UInt8], timeout: Duration, resends: Int,
        deadline: SMPInstant, overallDeadline: SMPInstant?, completion: @escaping @Sendable (Result<SMPPacket, SMPError>) -> Void
    ) {
        self.token = token
        self.group = group
        self.command = command
        self.bytes = bytes
        self.timeout = timeout
        self.resends = resends
        self.deadline = deadline
        self.overallDeadline = overallDeadline
        self.completion = completion
    }
}

/// A request `SMPClient.submit` put on its way.
public struct SMPSentRequest: Sendable, Hashable {
    /// The request's sequence number.
    public let sequence: UInt8
    let token: UInt64
}
