import CBOR
import SMP
import Synchronization

/// What every check works with: the probe, the options, and what the run learnt about the
/// device (its buffers, the image table it found), read once and shared.
final class ConformanceContext: Sendable {
    /// The device's SMP buffers as MCUmgr parameters report them.
    struct Buffers: Sendable, Hashable {
        /// `buf_size`: one buffer, header included.
        let size: Int
        /// `buf_count`.
        let count: Int
    }

    /// The probe every check sends through.
    let probe: SMPProbe
    /// The run's options.
    let options: ConformanceOptions
    /// The run's time.
    let clock: SMPClock

    /// What the run learnt, read once.
    struct Facts: Sendable {
        /// The buffers, once asked (`.some(nil)`: the device does not report them).
        var buffers: Buffers??
        /// The image table as the run found it.
        var initialImages: [ImageSlotRow]?
        /// The MCUboot mode, once asked (`.some(nil)`: unknown).
        var bootloaderMode: Int??
        /// The image `image.upload-complete` left in the upload slot, for the swap checks.
        var uploadedImage: [UInt8]?
    }

    /// What the run learnt.
    let facts = Mutex(Facts())

    init(probe: SMPProbe, options: ConformanceOptions, clock: SMPClock) {
        self.probe = probe
        self.options = options
        self.clock = clock
    }

    // MARK: - Exchanges

    /// Sends `request` once and returns its answer (`nil` after one timeout); with
    /// `keepsSequence` the request's own sequence number is sent.
    func send(
        _ request: ProbeRequest, keepsSequence: Bool = false, timeout: Duration? = nil,
        accepts: @escaping @Sendable (ProbeAnswer) -> Bool = { _ in true }
    ) async throws(ConformanceAbort) -> ProbeAnswer? {
        do {
            return try await probe.exchange(request, keepsSequence: keepsSequence, timeout: timeout, accepts: accepts)
        } catch {
            throw ConformanceAbort(reason: error.description)
        }
    }

    /// Sends a read (or a request that may be repeated), resent up to the configured retries.
    func ask(
        _ request: ProbeRequest, keepsSequence: Bool = false, accepts: @escaping @Sendable (ProbeAnswer) -> Bool = { _ in true }
    ) async throws(ConformanceAbort) -> ProbeAnswer? {
        do {
            return try await probe.exchange(request, keepsSequence: keepsSequence, resends: options.retries, accepts: accepts)
        } catch {
            throw ConformanceAbort(reason: error.description)
        }
    }

    /// `request` with the next sequence number, for a check that sends it more than once.
    func numbered(_ request: ProbeRequest) async -> ProbeRequest {
        var request = request
        request.sequence = await probe.allocateSequence()
        return request
    }

    /// What a pipeline of requests got: the answer of each request (by index), and the indices
    /// of the answered requests in the order their answers arrived.
    struct PipelineResult: Sendable {
        /// The answers, by request.
        let answers: [ProbeAnswer?]
        /// The requests answered, in arrival order.
        let arrival: [Int]
    }

    /// Sends `requests` back to back, each with the next sequence number, and gathers what
    /// arrives until every one is answered (as `answers` decides) or one timeout has passed.
    func pipeline(
        _ requests: [ProbeRequest], answers: @escaping @Sendable (ProbeRequest, ProbeAnswer) -> Bool
    ) async throws(ConformanceAbort) -> PipelineResult {
        await probe.drain()
        var sent: [ProbeRequest] = []
        for var request in requests {
            request.sequence = await probe.allocateSequence()
            try await sendRaw(request.bytes)
            sent.append(request)
        }
        var matched = [ProbeAnswer?](repeating: nil, count: sent.count)
        var arrival: [Int] = []
        let deadline = clock.now + options.timeout
        while matched.contains(where: { $0 == nil }), let answer = await probe.next(until: deadline) {
            guard answer.isResponse else { continue }
            // The first unmatched request this answers: its own sequence number first, else any.
            let bySequence = sent.indices.first { matched[$0] == nil && sent[$0].sequence == answer.sequence && answers(sent[$0], answer) }
            if let index = bySequence ?? sent.indices.first(where: { matched[$0] == nil && answers(sent[$0], answer) }) {
                matched[index] = answer
                arrival.append(index)
            }
        }
        let missing = matched.filter { $0 == nil }.count
        if missing > 0 { await probe.markUnanswered(missing) }
        return PipelineResult(answers: matched, arrival: arrival)
    }

    /// Writes raw bytes (a malformed packet), expecting nothing in particular.
    func sendRaw(_ bytes: [UInt8]) async throws(ConformanceAbort) {
        do {
            try await probe.send(bytes)
        } catch {
            throw ConformanceAbort(reason: error.description)
        }
    }

    /// Echo of `text`: the answer that carries it back, or (unless `onlyEcho`) a refusal.
    func echo(
        _ text: String, operation: SMPOperation = .write, version: SMPVersion = .v2, resends: Bool = true, onlyEcho: Bool = false
    ) async throws(ConformanceAbort) -> ProbeAnswer? {
        let request = ProbeRequest.echo(text, operation: operation, version: version)
        let accepts: @Sendable (ProbeAnswer) -> Bool = { $0.value?["r"]?.textValue == text || (!onlyEcho && $0.isRefusal) }
        return resends ? try await ask(request, accepts: accepts) : try await send(request, accepts: accepts)
    }

    /// Whether the device answers an echo (with the configured retries).
    func isAnswering() async throws(ConformanceAbort) -> Bool {
        try await echo("conformance: still there?")?.isSuccess == true
    }

    /// Waits until the device answers an echo again (after a reset), reconnecting a link that
    /// dropped, for at most `limit`; whether it did.
    func waitUntilAnswering(within limit: Duration) async -> Bool {
        let deadline = clock.now + limit
        var pause = Duration.milliseconds(250)
        await probe.note("waiting up to \(limit) for the device to answer again")
        while clock.now < deadline {
            _ = await probe.reconnect()
            // Short attempts: a device that has just booted answers at once, and the next attempt comes sooner.
            let attempt = min(options.timeout, .seconds(1), max(deadline - clock.now, .milliseconds(1)))
            let request = ProbeRequest.echo("conformance: back?")
            if let answer = try? await probe.exchange(request, timeout: attempt), answer.isSuccess { return true }
            try? await clock.sleep(for: min(pause, max(deadline - clock.now, .zero)))
            pause = min(pause * 2, .seconds(2))
        }
        return false
    }

    // MARK: - What the run learns

    /// The device's buffers (MCUmgr parameters, OS command 6), read once; `nil` when it does not
    /// report them. The transport is told the buffer size, as a session would.
    func buffers() async throws(ConformanceAbort) -> Buffers? {
        if let known = facts.withLock({ $0.buffers }) { return known }
        let answer = try await ask(ProbeRequest(.read, group: .os, command: 6))
        var found: Buffers?
        if let answer, answer.isSuccess, let size = answer.value?["buf_size"]?.intValue, let count = answer.value?["buf_count"]?.intValue,
            size > SMPHeader.size, count > 0
        {
            found = Buffers(size: size, count: count)
            await probe.transport.setDeviceBufferSize(size)
        }
        facts.withLock { $0.buffers = .some(found) }
        return found
    }

    /// The buffers if they were read, without asking.
    var knownBuffers: Buffers? { facts.withLock { $0.buffers ?? nil } }

    /// The largest packet the transport carries now.
    func transportLimit() async -> Int {
        await probe.transport.maximumPacketSize
    }

    /// The largest request both the device (`buf_size`, when known) and the transport take.
    func largestRequest() async throws(ConformanceAbort) -> Int {
        let transport = await transportLimit()
        guard let buffers = try await buffers() else { return transport }
        return min(transport, buffers.size)
    }

    /// The image table as the device lists it now (image state read), or `nil` when it does not answer one.
    func imageTable() async throws(ConformanceAbort) -> [ImageSlotRow]? {
        guard let answer = try await ask(ProbeRequest(.read, group: .image, command: 0)), answer.isSuccess else { return nil }
        return ImageSlotRow.rows(of: answer.value)
    }

    /// The image table the run found first (read on first use).
    func initialImageTable() async throws(ConformanceAbort) -> [ImageSlotRow]? {
        if let known = facts.withLock({ $0.initialImages }) { return known }
        let table = try await imageTable()
        facts.withLock { if $0.initialImages == nil { $0.initialImages = table } }
        return table
    }
}
