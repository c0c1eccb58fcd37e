extension SMPClient {
    // MARK: - The one send path

    /// Enters a request that holds a window slot into the requests in flight and arms its timer.
    func register(
        _ operation: SMPOperation, group: SMPGroup, command: UInt8, payload: [UInt8], retryPolicy: SMPRetryPolicy,
        options: SMPRequestOptions, delivery: PendingRequest.Delivery
    ) -> (sequence: UInt8, entry: PendingRequest) {
        let sequence = allocateSequence()
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
            token: nextToken(), group: group, command: command, bytes: header.packet(payload: payload), timeout: timeout,
            resends: resends, deadline: firstDeadline, overallDeadline: overall, delivery: delivery
        )
        pending[sequence] = entry
        armTimer()
        logFrame("->", header, entry.bytes)
        return (sequence, entry)
    }

    /// Hands a registered request's packet to the transport: at once over a transport bound to
    /// the session's executor, else through the outbox, in order (``flushOutbox()`` sends it).
    func transmit(_ sequence: UInt8, _ entry: PendingRequest) {
        if let boundTransport {
            do {
                try boundTransport.sendWithoutSuspending(entry.bytes)
            } catch {
                finish(sequence, token: entry.token, with: .failure(.transport(error)))
            }
        } else {
            outbox.append((sequence, entry))
        }
    }

    /// Sends the outbox's packets in order, unless another task of the session is doing so (it
    /// then sends these too). A request that ended before its turn is skipped.
    func flushOutbox() async {
        guard !isFlushing else { return }
        isFlushing = true
        while let (sequence, entry) = outbox.popFirst() {
            guard pending[sequence] === entry else { continue }
            do {
                try await transport.send(entry.bytes)
            } catch {
                finish(sequence, token: entry.token, with: .failure(.transport(error)))
            }
        }
        isFlushing = false
    }

    /// Sends the outbox on a task of the session's, for code that cannot wait.
    func flushLater() {
        guard !outbox.isEmpty, !isFlushing else { return }
        clock.task { await self.flushOutbox() }
    }

    /// Ends the request `sequence` (if it is still the one `token` names): frees its slot, hands
    /// over its result, and lets the pipelines use the room.
    func finish(_ sequence: UInt8, token: UInt64, with result: Result<SMPPacket, SMPError>) {
        guard let entry = pending[sequence], entry.token == token else { return }
        pending[sequence] = nil
        releaseSlot(answered: (try? result.get()) != nil)
        switch entry.delivery {
        case .closure(let completion):
            completion(result)
        case .pipeline(let pipeline, let tag):
            if isAttached(pipeline) { pipeline.complete(tag, with: result) }
        }
        pumpPipelines()
    }

    // MARK: - One request at a time

    /// Puts one request on its way and returns once the transport has it (or the task sending
    /// the session's outbox does); `completion` receives the answer packet (whatever its status),
    /// or the error that ended the request. Requests submitted one after the other by one task
    /// leave in that order.
    package func submit(
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
        let (sequence, entry) = register(
            operation, group: group, command: command, payload: payload, retryPolicy: retryPolicy, options: options,
            delivery: .closure(completion)
        )
        transmit(sequence, entry)
        await flushOutbox()
        return SMPSentRequest(sequence: sequence, token: entry.token)
    }

    /// Sends one request and waits for its answer packet, whatever its status.
    package func transceive(
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
    package func cancel(_ request: SMPSentRequest) {
        finish(request.sequence, token: request.token, with: .failure(.cancelled))
        flushLater()
    }
}

/// A request waiting for its response (touched only on the client actor).
final class PendingRequest {
    /// Where the outcome goes.
    enum Delivery {
        /// To a closure (one request at a time).
        case closure(@Sendable (Result<SMPPacket, SMPError>) -> Void)
        /// To the pipeline that gave the request, with its tag.
        case pipeline(any SMPPipeline, tag: Int)
    }

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
    let delivery: Delivery

    init(
        token: UInt64, group: SMPGroup, command: UInt8, bytes: [UInt8], timeout: Duration, resends: Int,
        deadline: SMPInstant, overallDeadline: SMPInstant?, delivery: Delivery
    ) {
        self.token = token
        self.group = group
        self.command = command
        self.bytes = bytes
        self.timeout = timeout
        self.resends = resends
        self.deadline = deadline
        self.overallDeadline = overallDeadline
        self.delivery = delivery
    }

    /// Whether the request came from a pipeline.
    var isPipelined: Bool {
        if case .pipeline = delivery { return true }
        return false
    }
}

/// A request put on its way one at a time (see `SMPClient.submit`).
package struct SMPSentRequest: Sendable, Hashable {
    /// The request's sequence number.
    package let sequence: UInt8
    let token: UInt64
}
