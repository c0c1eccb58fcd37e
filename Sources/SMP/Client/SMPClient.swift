import Logging

/// One SMP session with a device: owns sequence numbers, keeps up to `maximumInFlight`
/// requests outstanding, matches responses by sequence number (in any order), times requests
/// out and resends them with the same sequence number, and stops waiting when the calling
/// task is cancelled. Managers stay stateless and share one client.
public actor SMPClient {
    /// How the client talks to the device.
    public struct Configuration: Sendable {
        /// The protocol version requests are sent with.
        public var version: SMPVersion
        /// How long to wait for each response before resending.
        public var timeout: Duration
        /// How many times a request is resent after its first try before it fails with `SMPError.timeout`.
        public var retries: Int
        /// How many requests may wait for their responses at once (1–255).
        public var maximumInFlight: Int

        /// Makes a configuration; by default SMP v2, 5 s timeout, 2 retries, one request in flight.
        public init(version: SMPVersion = .v2, timeout: Duration = .seconds(5), retries: Int = 2, maximumInFlight: Int = 1) {
            self.version = version
            self.timeout = timeout
            self.retries = retries
            self.maximumInFlight = maximumInFlight
        }
    }

    /// The transport this session runs over.
    public nonisolated let transport: any SMPTransport
    /// The current configuration.
    public private(set) var configuration: Configuration
    /// The device's SMP buffer size (`buf_size`) once known; no request larger than it is sent.
    public private(set) var deviceBufferSize: Int?

    private let logger: Logger
    private var pending: [UInt8: PendingRequest] = [:]
    private var unclaimed: [UInt64: Result<SMPPacket, any Error>] = [:]
    private var nextSequence: UInt8 = 0
    private var inFlight = 0
    private var waiters: [(token: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    private var receiver: Task<Void, Never>?
    private var tokens: UInt64 = 0
    private var isClosed = false

    /// Makes a session over `transport`. The session is the transport's only event consumer.
    public init(transport: any SMPTransport, configuration: Configuration = Configuration(), logger: Logger = Logger(label: "smp")) {
        self.transport = transport
        self.configuration = configuration
        self.configuration.maximumInFlight = min(max(configuration.maximumInFlight, 1), 255)
        self.logger = logger
    }

    /// Changes how many requests may be in flight (clamped to 1–255).
    public func setMaximumInFlight(_ count: Int) {
        configuration.maximumInFlight = min(max(count, 1), 255)
        wakeWaiters()
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

    /// Records the device's `buf_size`, which then bounds every request.
    public func setDeviceBufferSize(_ size: Int?) {
        deviceBufferSize = size
    }

    /// The largest request this session sends: the transport's limit, and the device's buffer once known.
    public func packetLimit() async -> Int {
        let transportLimit = await transport.maximumPacketSize
        return min(transportLimit, deviceBufferSize ?? Int.max)
    }

    /// Sends one request and returns the matching response packet, whatever its status.
    ///
    /// Throws `SMPError` (timeout, transport, size) or `CancellationError`.
    public func transceive(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, payload: [UInt8],
        timeout: Duration? = nil, retries: Int? = nil
    ) async throws -> SMPPacket {
        let request = try await send(operation, group: group, command: command, payload: payload, timeout: timeout, retries: retries)
        return try await response(to: request)
    }

    /// Sends one request and returns once it is on its way; `response(to:)` then waits for the answer.
    ///
    /// Requests sent one after the other by one task leave in that order, which a pipelined
    /// upload needs. Every request sent must be redeemed with `response(to:)`.
    public func send(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, payload: [UInt8],
        timeout: Duration? = nil, retries: Int? = nil
    ) async throws -> SMPSentRequest {
        if isClosed { throw SMPError.closed }
        try Task.checkCancellation()
        startReceiving()
        let limit = await packetLimit()
        let size = SMPHeader.size + payload.count
        guard size <= limit else { throw SMPError.requestTooLarge(size: size, limit: limit) }

        try await acquireSlot()
        let sequence = allocateSequence()
        let token = nextToken()
        let header = SMPHeader(
            version: configuration.version, operation: operation, length: UInt16(payload.count),
            group: group.rawValue, sequence: sequence, command: command
        )
        let entry = PendingRequest(
            token: token, group: group, command: command, bytes: header.bytes + payload,
            timeout: timeout ?? configuration.timeout, retries: retries ?? configuration.retries
        )
        pending[sequence] = entry
        armTimer(for: entry, sequence: sequence)
        logger.trace("-> \(describe(header))")
        do {
            try await transport.send(entry.bytes)
        } catch {
            finish(sequence, token: token, with: .failure(SMPError.transport(error)))
        }
        return SMPSentRequest(sequence: sequence, token: token)
    }

    /// Waits for the response to a request made with `send`; cancelling the task stops waiting.
    public func response(to request: SMPSentRequest) async throws -> SMPPacket {
        if let result = unclaimed.removeValue(forKey: request.token) {
            return try result.get()
        }
        guard let entry = pending[request.sequence], entry.token == request.token else {
            throw SMPError.invalidRequest("no request with sequence number \(request.sequence) is waiting for a response")
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SMPPacket, any Error>) in
                if let result = unclaimed.removeValue(forKey: request.token) {
                    continuation.resume(with: result)
                } else {
                    entry.continuation = continuation
                }
            }
        } onCancel: {
            Task { await self.finish(request.sequence, token: request.token, with: .failure(CancellationError())) }
        }
    }

    /// Fails every request in flight and closes the transport.
    public func close() async {
        guard !isClosed else { return }
        isClosed = true
        for (sequence, entry) in pending {
            finish(sequence, token: entry.token, with: .failure(SMPError.closed))
        }
        for waiter in waiters { waiter.continuation.resume() }
        waiters.removeAll()
        receiver?.cancel()
        await transport.close()
    }

    // MARK: - Window

    private func acquireSlot() async throws {
        while inFlight >= configuration.maximumInFlight {
            let token = nextToken()
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    waiters.append((token: token, continuation: continuation))
                }
            } onCancel: {
                Task { await self.dropWaiter(token) }
            }
            if Task.isCancelled {
                // This task may have been woken for a free slot it will not take: pass it on.
                wakeWaiters()
                throw CancellationError()
            }
            if isClosed { throw SMPError.closed }
        }
        inFlight += 1
    }

    private func releaseSlot() {
        inFlight -= 1
        wakeWaiters()
    }

    private func wakeWaiters() {
        var free = configuration.maximumInFlight - inFlight
        while free > 0, !waiters.isEmpty {
            waiters.removeFirst().continuation.resume()
            free -= 1
        }
    }

    private func dropWaiter(_ token: UInt64) {
        if let index = waiters.firstIndex(where: { $0.token == token }) {
            waiters.remove(at: index).continuation.resume()
        }
    }

    // MARK: - Requests in flight

    private func nextToken() -> UInt64 {
        tokens &+= 1
        return tokens
    }

    /// The next sequence number not in use, counting up and wrapping 255 → 0.
    private func allocateSequence() -> UInt8 {
        while true {
            let sequence = nextSequence
            nextSequence &+= 1
            if pending[sequence] == nil { return sequence }
        }
    }

    private func armTimer(for entry: PendingRequest, sequence: UInt8) {
        entry.timer?.cancel()
        let token = entry.token
        let timeout = entry.timeout
        entry.timer = Task {
            do { try await Task.sleep(for: timeout) } catch { return }
            await self.timerFired(sequence, token: token)
        }
    }

    private func timerFired(_ sequence: UInt8, token: UInt64) async {
        guard let entry = pending[sequence], entry.token == token else { return }
        guard entry.attempts <= entry.retries else {
            logger.debug("timeout: seq \(sequence) \(entry.group) cmd \(entry.command) after \(entry.attempts) attempts")
            finish(sequence, token: token, with: .failure(SMPError.timeout(group: entry.group, command: entry.command, attempts: entry.attempts)))
            return
        }
        entry.attempts += 1
        logger.debug("retry \(entry.attempts - 1) of seq \(sequence) \(entry.group) cmd \(entry.command)")
        armTimer(for: entry, sequence: sequence)
        do {
            try await transport.send(entry.bytes)
        } catch {
            finish(sequence, token: token, with: .failure(SMPError.transport(error)))
        }
    }

    private func finish(_ sequence: UInt8, token: UInt64, with result: Result<SMPPacket, any Error>) {
        guard let entry = pending[sequence], entry.token == token else { return }
        pending[sequence] = nil
        entry.timer?.cancel()
        releaseSlot()
        if let continuation = entry.continuation {
            entry.continuation = nil
            continuation.resume(with: result)
        } else {
            unclaimed[token] = result
        }
    }

    // MARK: - Receiving

    private func startReceiving() {
        guard receiver == nil else { return }
        let events = transport.events
        receiver = Task { [weak self] in
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
                finish(sequence, token: entry.token, with: .failure(SMPError.transport(.disconnected(reason: reason))))
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
        finish(header.sequence, token: entry.token, with: .success(packet))
    }

    private func describe(_ header: SMPHeader) -> String {
        "seq \(header.sequence) op \(header.operation.rawValue) v\(header.version.rawValue + 1) \(SMPGroup(rawValue: header.group)) cmd \(header.command) len \(header.length)"
    }
}

/// A request waiting for its response (touched only on the client actor).
private final class PendingRequest {
    let token: UInt64
    let group: SMPGroup
    let command: UInt8
    let bytes: [UInt8]
    let timeout: Duration
    let retries: Int
    var attempts = 1
    var timer: Task<Void, Never>?
    var continuation: CheckedContinuation<SMPPacket, any Error>?

    init(token: UInt64, group: SMPGroup, command: UInt8, bytes: [UInt8], timeout: Duration, retries: Int) {
        self.token = token
        self.group = group
        self.command = command
        self.bytes = bytes
        self.timeout = timeout
        self.retries = retries
    }
}

/// A request `SMPClient.send` put on its way, to redeem with `SMPClient.response(to:)`.
public struct SMPSentRequest: Sendable, Hashable {
    /// The request's sequence number.
    public let sequence: UInt8
    let token: UInt64
}
