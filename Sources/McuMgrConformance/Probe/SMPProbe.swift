import SMP

/// Raw access to a device's SMP server over any transport, beside no session: it writes the bytes
/// it is given (malformed ones too), keeps what arrives in order, and waits for answers on an
/// `SMPClock`. Everything sent and received while a check runs is kept as its evidence.
///
/// An answer is matched to its request by group and command, and by sequence number when the
/// device echoes it: a check that is not about sequence numbers still sees the answer of a
/// device that gets them wrong (the sequence check judges that).
actor SMPProbe {
    /// The transport, whose events only this probe reads.
    let transport: any SMPTransport
    /// The time every wait reads.
    let clock: SMPClock
    /// How long to wait for an answer.
    let timeout: Duration
    /// How many times a request that may be sent again is resent after a timeout.
    let retries: Int

    private var inbox: [ProbeAnswer] = []
    private var waiter: (token: Int, continuation: CheckedContinuation<Void, Never>)?
    private var waitTokens = 0
    private var nextSequence: UInt8 = 0
    private var receiver: Task<Void, Never>?
    private var evidence: [ConformanceEvidence] = []
    private var omittedEvidence = 0
    /// Requests left unanswered since the check began.
    private(set) var unanswered = 0
    /// Why the link went down, while it is down.
    private(set) var linkDown: String?

    /// Evidence lines kept for one check; later ones are counted.
    static let evidenceLimit = 64

    /// Makes a probe over a connected transport; ``start()`` begins reading its events.
    init(transport: any SMPTransport, clock: SMPClock, timeout: Duration, retries: Int) {
        self.transport = transport
        self.clock = clock
        self.timeout = timeout
        self.retries = max(0, retries)
    }

    /// Begins taking the transport's events (once).
    func start() {
        guard receiver == nil else { return }
        let events = transport.events
        receiver = clock.task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.arrived(event)
            }
        }
    }

    /// Stops reading and closes the transport.
    func close() async {
        receiver?.cancel()
        receiver = nil
        await transport.close()
    }

    // MARK: - Evidence

    /// Starts a check: empties the evidence and the count of unanswered requests.
    func beginCheck() {
        evidence = []
        omittedEvidence = 0
        unanswered = 0
    }

    /// The evidence of the check so far.
    func takeEvidence() -> [ConformanceEvidence] {
        omittedEvidence == 0 ? evidence : evidence + [ConformanceEvidence(note: "\(omittedEvidence) more lines not kept")]
    }

    /// Counts requests a check sent itself and saw go unanswered.
    func markUnanswered(_ count: Int) {
        unanswered += count
        note("\(count) request(s) got no answer within \(timeout)")
    }

    /// Adds a remark to the evidence.
    func note(_ text: String) {
        record(ConformanceEvidence(note: text))
    }

    private func record(_ line: ConformanceEvidence) {
        if evidence.count < Self.evidenceLimit { evidence.append(line) } else { omittedEvidence += 1 }
    }

    // MARK: - Sending

    /// The next sequence number, counting up and wrapping 255 → 0.
    func allocateSequence() -> UInt8 {
        defer { nextSequence &+= 1 }
        return nextSequence
    }

    /// Writes one packet; a link that is down is brought up once first.
    func send(_ bytes: [UInt8]) async throws(ProbeFailure) {
        record(ConformanceEvidence(.sent, bytes: bytes))
        do throws(SMPTransportError) {
            try await transport.send(bytes)
            return
        } catch .packetTooLarge(let size, let limit) {
            throw .tooLarge(size: size, limit: limit)
        } catch .notConnected, .disconnected {
            // Reconnect below.
        } catch {
            throw .link("\(error)")
        }
        do throws(SMPTransportError) {
            try await transport.connect()
            try await transport.send(bytes)
        } catch {
            throw .link("\(error)")
        }
    }

    /// Tries to bring the link up again; whether it is up.
    func reconnect() async -> Bool {
        do {
            try await transport.connect()
            return true
        } catch {
            return false
        }
    }

    // MARK: - Receiving

    private func arrived(_ event: SMPTransportEvent) {
        switch event {
        case .received(let bytes):
            record(ConformanceEvidence(.received, bytes: bytes))
            if let answer = ProbeAnswer(bytes) { inbox.append(answer) }
        case .disconnected(let reason):
            linkDown = reason
            record(ConformanceEvidence(note: "link down: \(reason)"))
        case .connected:
            linkDown = nil
            record(ConformanceEvidence(note: "link up"))
        case .unreachable(let reason):
            // A lost packet to the probe: the checks' own timeouts judge the device.
            record(ConformanceEvidence(note: "packet refused: \(reason)"))
        }
        wake(waiter?.token)
    }

    /// Forgets what arrived and was not taken (late or duplicate answers).
    func drain() {
        inbox.removeAll()
    }

    /// The next packet to arrive, or `nil` once `deadline` passes.
    func next(until deadline: SMPInstant) async -> ProbeAnswer? {
        while inbox.isEmpty {
            if clock.now >= deadline { return nil }
            await suspend(until: deadline)
        }
        return inbox.removeFirst()
    }

    /// Every packet that arrives until `deadline`, or until `count` have.
    func collect(_ count: Int, until deadline: SMPInstant) async -> [ProbeAnswer] {
        var answers: [ProbeAnswer] = []
        while answers.count < count, let answer = await next(until: deadline) { answers.append(answer) }
        return answers
    }

    private func suspend(until deadline: SMPInstant) async {
        waitTokens += 1
        let token = waitTokens
        let clock = self.clock
        let timer = clock.task { [weak self] in
            try? await clock.sleep(until: deadline)
            await self?.wake(token)
        }
        await withCheckedContinuation { waiter = (token, $0) }
        timer.cancel()
    }

    private func wake(_ token: Int?) {
        guard let current = waiter, current.token == token else { return }
        waiter = nil
        current.continuation.resume()
    }

    // MARK: - Exchanges

    /// Sends `request` (with the next sequence number unless `keepsSequence`) and returns its
    /// answer: the first response packet of its group and command that `accepts` (any, by
    /// default), with its sequence number preferred but not required. Resends the same bytes
    /// `resends` times after a timeout; `nil` when nothing came.
    func exchange(
        _ request: ProbeRequest, keepsSequence: Bool = false, timeout: Duration? = nil, resends: Int = 0,
        accepts: @Sendable (ProbeAnswer) -> Bool = { _ in true }
    ) async throws(ProbeFailure) -> ProbeAnswer? {
        var request = request
        if !keepsSequence { request.sequence = allocateSequence() }
        let bytes = request.bytes
        let wait = timeout ?? self.timeout
        for attempt in 0...max(0, resends) {
            if attempt > 0 { note("no answer within \(wait); sending it again") }
            drain()
            try await send(bytes)
            let deadline = clock.now + wait
            while let answer = await next(until: deadline) {
                if answer.isResponse, answer.group == request.group, answer.command == request.command, accepts(answer) {
                    return answer
                }
            }
        }
        unanswered += 1
        note("no answer within \(wait)")
        return nil
    }

    /// An exchange of a read or idempotent request, resent up to the configured retries.
    func ask(_ request: ProbeRequest, accepts: @Sendable (ProbeAnswer) -> Bool = { _ in true }) async throws(ProbeFailure) -> ProbeAnswer? {
        try await exchange(request, resends: retries, accepts: accepts)
    }
}
