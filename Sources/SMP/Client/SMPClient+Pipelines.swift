extension SMPClient {
    /// Starts keeping `pipeline`'s requests in flight: it is asked for one whenever the window has
    /// room, now and after every outcome, until ``detach(_:)``. Call it from code isolated to the
    /// session (a function taking `isolated SMPClient`), where the pipeline lives.
    ///
    /// Pipelines share the window with requests sent one at a time; those waiting for a slot go
    /// first. After a refusal for lack of room the session holds pipelines back as long as the
    /// device needs (see `SMPClient+Refusals.swift`).
    public func attach(_ pipeline: any SMPPipeline) async throws(SMPError) {
        if isClosed { throw .closed }
        startReceiving()
        if !isAttached(pipeline) { pipelines.append(pipeline) }
        await resume(pipeline)
    }

    /// Asks `pipeline` again for requests, after it returned none and now has one (it was
    /// paused, or recovered from a lost link). Reads the transport's packet size again first.
    public func resume(_ pipeline: any SMPPipeline) async {
        if boundTransport == nil { transportPacketLimit = await transport.maximumPacketSize }
        pumpPipelines()
        await flushOutbox()
    }

    /// Stops asking `pipeline` and cancels its requests in flight (their late answers are
    /// ignored; the pipeline hears nothing more).
    public func detach(_ pipeline: any SMPPipeline) {
        pipelines.removeAll { $0 === pipeline }
        let abandoned = pending.filter { _, entry in
            if case .pipeline(let owner, _) = entry.delivery { return owner === pipeline }
            return false
        }
        for (sequence, entry) in abandoned {
            finish(sequence, token: entry.token, with: .failure(.cancelled))
        }
        if pipelines.isEmpty, let hold {
            hold.task.cancel()
            self.hold = nil
        }
        flushLater()
    }

    func isAttached(_ pipeline: any SMPPipeline) -> Bool {
        pipelines.contains { $0 === pipeline }
    }

    /// Asks the pipelines for requests while the window has room (none while a request sent one
    /// at a time waits for a slot, or while a refusal holds them back), sends them, then tells
    /// each pipeline the round is over. An outcome delivered during the round (a send that
    /// failed at once) asks again when the round ends.
    func pumpPipelines() {
        guard !pipelines.isEmpty else { return }
        if isPumping {
            needsPump = true
            return
        }
        isPumping = true
        repeat {
            needsPump = false
            var asked = true
            while asked, !isClosed, isReceiving, hold == nil, inFlight < window, slotWaiters.isEmpty {
                asked = false
                for pipeline in pipelines where inFlight < window && hold == nil {
                    guard let request = pipeline.nextRequest() else { continue }
                    asked = launch(request, from: pipeline) || asked
                }
            }
        } while needsPump
        isPumping = false
        for pipeline in pipelines { pipeline.didSend() }
    }

    /// Registers and transmits one pipelined request; returns whether it went (one too large for
    /// the packet limit fails at once, to the pipeline).
    private func launch(_ request: SMPPipelineRequest, from pipeline: any SMPPipeline) -> Bool {
        let limit = pipelinePacketLimit
        let size = SMPHeader.size + request.payload.count
        guard size <= limit else {
            pipeline.complete(request.tag, with: .failure(.requestTooLarge(size: size, limit: limit)))
            return false
        }
        inFlight += 1
        let (sequence, entry) = register(
            request.operation, group: request.group, command: request.command, payload: request.payload,
            retryPolicy: request.retryPolicy, options: request.options, delivery: .pipeline(pipeline, tag: request.tag)
        )
        transmit(sequence, entry)
        return true
    }

    /// The packet limit for pipelined requests, read without suspending: the bound transport's
    /// current size, or the size last read from the transport.
    private var pipelinePacketLimit: Int {
        let transportLimit = boundTransport?.currentMaximumPacketSize ?? transportPacketLimit ?? Int.max
        return packetLimit(transportLimit: transportLimit)
    }
}
