import CBOR
import Logging
import SMP

/// One chunk request on its way.
struct UploadChunk: Sendable {
    let id: Int
    let offset: Int
    let length: Int
    let epoch: Int
    let isFirst: Bool
}

/// One chunk's request, encoded ahead of its turn.
struct PreparedChunk: Sendable {
    let offset: Int
    let length: Int
    let isFirst: Bool
    let request: UploadChunkRequest
    let payload: [UInt8]
}

/// What came back for one chunk.
struct UploadChunkOutcome: Sendable {
    let chunk: UploadChunk
    let result: Result<UploadAcknowledgement, SMPError>
    /// The chunk this answer sent at once (``UploadChain``), with its request.
    var chained: (chunk: UploadChunk, request: SMPSentRequest)? = nil
}

/// The mutable state of one upload (see ``UploadEngine``).
struct UploadRun {
    let engine: UploadEngine
    let data: [UInt8]
    var meter: UploadProgressMeter
    let progress: @Sendable (UploadProgress) -> Void

    /// The largest data lengths of the first and later chunks, for the packet size in force.
    var sizes = (first: 0, later: 0)
    /// Bytes the device holds, as last reported.
    var acknowledged = 0
    /// The furthest offset the device reported since it last lost the upload.
    var highWater = 0
    /// Where the next chunk starts.
    var next = 0
    /// Bumped whenever sending restarts from a new offset; answers to older chunks are stale.
    var epoch = 0
    var needsFirstChunk = true
    var failures = 0
    var restarts = 0
    var nextID = 0
    /// Every chunk sent and not yet answered, by id, with its session request (nil when the
    /// session failed it at once). The answers of those of the current ``epoch`` count; older
    /// ones were abandoned by a restart and may still hold a buffer in the device.
    var unanswered: [Int: (chunk: UploadChunk, request: SMPSentRequest?)] = [:]
    var finalMatch: Bool?
    /// The next chunk's request, encoded while the chunks before it were on their way (off the
    /// round trip's critical path); used when the chunk sent next is this one.
    var prepared: PreparedChunk?
    /// Progress recorded and not yet handed to ``progress`` (see ``reportProgress()``).
    var unreported: [UploadProgress] = []
    /// Where the next chunk is offered to the answers, when the session sends from its completions.
    let chain: UploadChain?
    /// Whether the chunk at the last offer is on its way, sent by an answer the engine has not
    /// read yet: nothing more is sent until that answer's outcome says which request it is.
    var chainedUnseen = false
    /// How many chunks answers sent (``UploadChain``).
    var chainedChunks = 0

    var total: Int { data.count }
    var client: SMPClient { engine.target.client }
    var configuration: UploadConfiguration { engine.configuration }
    var logger: Logger { engine.logger }
    /// How many chunks whose answers count are on their way.
    var inFlight: Int { unanswered.values.reduce(0) { $0 + ($1.chunk.epoch == epoch ? 1 : 0) } }

    init(engine: UploadEngine, data: [UInt8], meter: UploadProgressMeter, progress: @escaping @Sendable (UploadProgress) -> Void) {
        self.engine = engine
        self.data = data
        self.meter = meter
        self.progress = progress
        chain = engine.target.client.sendsWithoutSuspending ? UploadChain() : nil
    }

    /// Runs the upload to its end on `session`'s executor (the session of ``client``): the
    /// helpers below inherit it (`nonisolated(nonsending)`), so reading the session's window and
    /// waiting for the next answer switch no executor. Over a session on its transport's event
    /// loop, each chunk then costs the loop one task (the answer waking the engine) instead of eight.
    mutating func execute(on session: isolated SMPClient) async throws(UploadError) -> UploadAcknowledgement {
        try await readChunkSizes()
        let outcomes = SingleConsumerQueue<UploadChunkOutcome>()
        defer { reportProgress() }
        while acknowledged < total || needsFirstChunk {
            if Task.isCancelled { throw .cancelled }
            if inFlight == 0 && engine.control.isPaused {
                reportProgress()
                await engine.control.waitWhilePaused()
                continue
            }
            try await launchChunks(into: outcomes)
            reportProgress()
            if inFlight == 0 && !needsFirstChunk && !chainedUnseen {
                // Everything was sent but the device holds less: send again from where it stands.
                restart(from: acknowledged)
                continue
            }
            let offered = prepareNextChunk().map(offer) ?? false
            guard let outcome = await outcomes.next() else { throw .cancelled }
            if offered && chain?.withdraw() == nil {
                chainedUnseen = true
                prepared = nil
            }
            unanswered[outcome.chunk.id] = nil
            if let chained = outcome.chained { adopt(chained) }
            guard outcome.chunk.epoch == epoch else { continue }
            try await handle(outcome)
        }
        if chain != nil {
            logger.debug("\(chainedChunks) of \(nextID) chunks went out from the answers before them")
        }
        if finalMatch == false { throw .verificationFailed }
        return UploadAcknowledgement(nextOffset: acknowledged, match: finalMatch)
    }

    /// Frees the session's window of every request still waiting (the upload ended).
    func abandonAll() async {
        for request in chain?.close() ?? [] { await client.cancel(request) }
        for case let request? in unanswered.values.map(\.request) { await client.cancel(request) }
    }

    /// Offers `prepared`, the chunk at ``next``, to the answers of the chunks in flight
    /// (``UploadChain``) while the engine waits; returns whether it did.
    func offer(_ prepared: PreparedChunk) -> Bool {
        guard let chain, !chainedUnseen, inFlight > 0, !engine.control.isPaused else { return false }
        let chunk = UploadChunk(id: nextID, offset: prepared.offset, length: prepared.length, epoch: epoch, isFirst: false)
        chain.offer(UploadChain.Link(chunk: chunk, request: prepared.request, payload: prepared.payload))
        return true
    }

    /// Takes over a chunk an answer sent at once: it is in flight from now on.
    mutating func adopt(_ chained: (chunk: UploadChunk, request: SMPSentRequest)) {
        chain?.adopted(chained.chunk.id)
        chainedUnseen = false
        chainedChunks += 1
        nextID = max(nextID, chained.chunk.id + 1)
        unanswered[chained.chunk.id] = (chained.chunk, chained.request)
        if chained.chunk.epoch == epoch && chained.chunk.offset == next {
            next += chained.chunk.length
            if prepared?.offset == chained.chunk.offset { prepared = nil }
        }
    }

    /// Reads the session's packet size (again, after the link came back) and sizes chunks to it.
    nonisolated(nonsending) mutating func readChunkSizes() async throws(UploadError) {
        let packetSize = await client.packetLimit()
        sizes = try engine.chunkSizes(totalLength: total, packetSize: packetSize)
        logger.debug("chunks of up to \(sizes.later) bytes in packets of \(packetSize)")
    }

    // MARK: Sending

    nonisolated(nonsending) mutating func launchChunks(into sink: SingleConsumerQueue<UploadChunkOutcome>) async throws(UploadError) {
        if needsFirstChunk {
            guard inFlight == 0, !engine.control.isPaused else { return }
            try await launch(UploadChunk(id: nextID, offset: 0, length: min(sizes.first, total), epoch: epoch, isFirst: true), into: sink)
            return
        }
        if unanswered.values.contains(where: { $0.chunk.isFirst && $0.chunk.epoch == epoch }) { return }
        if chainedUnseen { return }
        while next < total, !engine.control.isPaused, inFlight < (await client.window) {
            let length = chunkLength(at: next)
            try await launch(UploadChunk(id: nextID, offset: next, length: length, epoch: epoch, isFirst: false), into: sink)
            next += length
        }
    }

    /// The length of a later chunk starting at `offset`: chunk ends stay on the alignment even
    /// after resuming from an unaligned device offset.
    func chunkLength(at offset: Int) -> Int {
        let room = sizes.later - offset % configuration.byteAlignment
        return min(room > 0 ? room : sizes.later, total - offset)
    }

    /// Encodes the chunk that goes next when the device confirms the ones in flight, while they
    /// are on their way: a stop-and-wait upload then only sends it when the answer comes. (An
    /// encoding error is left for ``launch(_:into:)`` to report.) Returns it, `nil` when there is none.
    mutating func prepareNextChunk() -> PreparedChunk? {
        guard !needsFirstChunk, next < total else { return nil }
        prepared = try? encoded(offset: next, length: chunkLength(at: next), isFirst: false)
        return prepared
    }

    /// The encoded request of one chunk: the prepared one when it is that chunk, else encoded now.
    func encoded(offset: Int, length: Int, isFirst: Bool) throws -> PreparedChunk {
        if let prepared, prepared.offset == offset, prepared.length == length, prepared.isFirst == isFirst { return prepared }
        let request = try engine.target.request(
            offset: offset, data: data[offset..<(offset + length)], totalLength: total, isFirst: isFirst
        )
        return PreparedChunk(offset: offset, length: length, isFirst: isFirst, request: request, payload: CBORWriter().encode(request.payload))
    }

    /// Sends a chunk (in order: the next is sent only once this one is on its way); its answer
    /// arrives on `sink`.
    nonisolated(nonsending) mutating func launch(_ chunk: UploadChunk, into sink: SingleConsumerQueue<UploadChunkOutcome>) async throws(UploadError) {
        nextID += 1
        let target = engine.target
        let encoded: PreparedChunk
        do {
            encoded = try self.encoded(offset: chunk.offset, length: chunk.length, isFirst: chunk.isFirst)
        } catch {
            throw .invalidConfiguration("the chunk request cannot be encoded: \(error)")
        }
        prepared = nil
        let request = encoded.request
        do {
            let request = try await client.submit(
                request.operation, group: request.group, command: request.command, payload: encoded.payload,
                retryPolicy: request.retryPolicy, options: chunkOptions,
                completion: Self.completion(for: chunk, target: target, options: chunkOptions, control: engine.control, chain: chain, sink: sink)
            )
            unanswered[chunk.id] = (chunk, request)
        } catch {
            unanswered[chunk.id] = (chunk, nil)
            sink.yield(UploadChunkOutcome(chunk: chunk, result: .failure(error)))
        }
    }

    /// The session options of every chunk request.
    var chunkOptions: SMPRequestOptions {
        SMPRequestOptions(timeout: configuration.chunkTimeout, retries: configuration.chunkRetries)
    }

    /// What the session calls with a chunk's answer: the outcome goes to `sink`, and when the
    /// device took the chunk in order, the chunk offered on `chain` is sent first, right there.
    static func completion(
        for chunk: UploadChunk, target: any UploadTarget, options: SMPRequestOptions, control: UploadControl,
        chain: UploadChain?, sink: SingleConsumerQueue<UploadChunkOutcome>
    ) -> @Sendable (Result<SMPPacket, SMPError>) -> Void {
        { result in
            let acknowledgement = result.flatMap { packet in
                Result { () throws(SMPError) -> UploadAcknowledgement in
                    let response: CBORValue
                    do {
                        response = try packet.decodedPayload()
                    } catch {
                        throw .invalidResponse("upload answer: \(error)")
                    }
                    return try target.acknowledgement(from: response)
                }
            }
            var outcome = UploadChunkOutcome(chunk: chunk, result: acknowledgement)
            if let chain, case .success(let ack) = acknowledgement, !control.isPaused,
               let link = chain.take(answering: chunk, deviceOffset: ack.nextOffset) {
                // Completions run on the session's executor (it called this one from `finish`).
                let client = target.client
                let sent = client.assumeIsolated { client in
                    client.submitWithoutSuspending(
                        link.request.operation, group: link.request.group, command: link.request.command,
                        payload: link.payload, retryPolicy: link.request.retryPolicy, options: options,
                        completion: completion(for: link.chunk, target: target, options: options, control: control, chain: chain, sink: sink)
                    )
                }
                if let sent {
                    chain.launched(link.chunk.id, as: sent)
                    outcome.chained = (link.chunk, sent)
                } else {
                    chain.putBack(link)
                }
            }
            sink.yield(outcome)
        }
    }

    /// Abandons the chunks in flight (their answers no longer count) and continues from `offset`.
    mutating func restart(from offset: Int) {
        epoch += 1
        next = offset
    }
}
