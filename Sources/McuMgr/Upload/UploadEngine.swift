import CBOR
import Logging
import SMP

/// The one upload loop behind image and file uploads.
///
/// It sends the first chunk alone (so the device can answer where a previous upload of the same
/// file stands), then keeps up to `pipelineDepth` chunks in flight. The device's `off` is the
/// truth: when it reports another offset than expected (a lost or reordered chunk), chunks in
/// flight past it are abandoned and sending resumes from the device's offset; late and duplicate
/// answers are ignored. A busy or out-of-memory answer narrows the window, waits briefly and
/// resends from the device's offset; a timeout resends from the last acknowledged offset unless a
/// later acknowledgement already covered it; a dropped link is waited for, and the device is asked
/// where it stands instead of starting over.
public struct UploadEngine: Sendable {
    /// Where the chunks go.
    public let target: any UploadTarget
    /// Pacing and sizing.
    public let configuration: UploadConfiguration
    /// Pause and resume.
    public let control: UploadControl
    let logger: Logger

    /// Makes an engine; `configuration` is checked when `upload` starts.
    public init(target: any UploadTarget, configuration: UploadConfiguration, control: UploadControl = UploadControl(), logger: Logger = Logger(label: "mcumgr.upload")) {
        self.target = target
        self.configuration = configuration
        self.control = control
        self.logger = logger
    }

    /// The largest chunk data length that fits one packet, rounded down to the alignment.
    public func maximumChunkLength(totalLength: Int, isFirst: Bool) throws(UploadError) -> Int {
        let limit = configuration.packetSize
        let empty: Int
        do {
            empty = try target.packetSize(offset: totalLength, dataLength: 0, totalLength: totalLength, isFirst: isFirst)
        } catch {
            throw .invalidConfiguration("the chunk request cannot be encoded: \(error)")
        }
        // packet(n) = empty − head(0) + head(n) + n, with head(0) = 1 byte.
        var length = limit - empty
        while length > 0, empty - 1 + cborByteStringHeadLength(length) + length > limit {
            length -= 1
        }
        return length - length % configuration.byteAlignment
    }

    /// Uploads `data` and returns the final acknowledgement; `progress` sees every new acknowledged offset.
    public func upload(
        _ data: [UInt8], progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }
    ) async throws(UploadError) -> UploadAcknowledgement {
        let (maxFirst, maxChunk) = try validate(totalLength: data.count)
        let window = configuration.pipelineDepth
        let currentWindow = await target.client.configuration.maximumInFlight
        if currentWindow < window { await target.client.setMaximumInFlight(window) }
        var run = UploadRun(
            engine: self, data: data, maximumChunk: maxChunk, maximumFirstChunk: maxFirst,
            window: window, meter: UploadProgressMeter(total: data.count), progress: progress
        )
        do {
            return try await run.execute()
        } catch let error as UploadError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .failed("\(error)")
        }
    }

    /// Checks the configuration and returns the largest first and later chunk lengths.
    private func validate(totalLength: Int) throws(UploadError) -> (first: Int, later: Int) {
        guard configuration.pipelineDepth >= 1, configuration.pipelineDepth <= 255 else {
            throw .invalidConfiguration("pipeline depth must be 1 to 255, not \(configuration.pipelineDepth)")
        }
        guard UploadConfiguration.supportedAlignments.contains(configuration.byteAlignment) else {
            throw .invalidConfiguration("byte alignment must be 1, 2, 4, 8 or 16, not \(configuration.byteAlignment)")
        }
        guard totalLength > 0 else { throw .invalidConfiguration("nothing to upload: the data is empty") }
        let first = try maximumChunkLength(totalLength: totalLength, isFirst: true)
        let later = try maximumChunkLength(totalLength: totalLength, isFirst: false)
        guard first >= min(32, totalLength), later > 0 else {
            throw .invalidConfiguration("packet size \(configuration.packetSize) leaves no room for chunk data")
        }
        return (first, later)
    }
}

/// One chunk request on its way.
private struct Chunk: Sendable {
    let id: Int
    let offset: Int
    let length: Int
    let epoch: Int
    let isFirst: Bool
}

/// What came back for one chunk.
private struct ChunkOutcome: Sendable {
    let chunk: Chunk
    let result: Result<UploadAcknowledgement, any Error>
}

/// The mutable state of one upload.
private struct UploadRun {
    let engine: UploadEngine
    let data: [UInt8]
    let maximumChunk: Int
    let maximumFirstChunk: Int
    var window: Int
    var meter: UploadProgressMeter
    let progress: @Sendable (UploadProgress) -> Void

    /// Bytes the device holds, as last reported.
    var acknowledged = 0
    /// Where the next chunk starts.
    var next = 0
    /// Bumped whenever sending restarts from a new offset; answers to older chunks are stale.
    var epoch = 0
    var needsFirstChunk = true
    var failures = 0
    var nextID = 0
    var inFlight: [Int: (chunk: Chunk, task: Task<Void, Never>)] = [:]
    var finalMatch: Bool?

    var total: Int { data.count }
    var configuration: UploadConfiguration { engine.configuration }
    var logger: Logger { engine.logger }

    mutating func execute() async throws -> UploadAcknowledgement {
        let (outcomes, sink) = AsyncStream.makeStream(of: ChunkOutcome.self)
        defer {
            for entry in inFlight.values { entry.task.cancel() }
            sink.finish()
        }
        var iterator = outcomes.makeAsyncIterator()
        while acknowledged < total || needsFirstChunk {
            try Task.checkCancellation()
            if inFlight.isEmpty && engine.control.isPaused {
                await engine.control.waitWhilePaused()
                continue
            }
            await launchChunks(into: sink)
            if inFlight.isEmpty && !needsFirstChunk {
                // Everything was sent but the device holds less: send again from where it stands.
                restart(from: acknowledged)
                continue
            }
            guard let outcome = await iterator.next() else { throw CancellationError() }
            guard inFlight.removeValue(forKey: outcome.chunk.id) != nil else { continue }
            try await handle(outcome)
        }
        if finalMatch == false { throw UploadError.verificationFailed }
        return UploadAcknowledgement(nextOffset: acknowledged, match: finalMatch)
    }

    // MARK: Sending

    mutating func launchChunks(into sink: AsyncStream<ChunkOutcome>.Continuation) async {
        if needsFirstChunk {
            guard inFlight.isEmpty, !engine.control.isPaused else { return }
            let length = min(maximumFirstChunk, total)
            await launch(Chunk(id: nextID, offset: 0, length: length, epoch: epoch, isFirst: true), into: sink)
            return
        }
        if inFlight.values.contains(where: { $0.chunk.isFirst }) { return }
        let alignment = configuration.byteAlignment
        while inFlight.count < window, next < total, !engine.control.isPaused {
            // Keep chunk ends on the alignment even after resuming from an unaligned device offset.
            let room = maximumChunk - next % alignment
            let length = min(room > 0 ? room : maximumChunk, total - next)
            await launch(Chunk(id: nextID, offset: next, length: length, epoch: epoch, isFirst: false), into: sink)
            next += length
        }
    }

    /// Sends a chunk (in order: the next is sent only once this one is on its way) and leaves a
    /// task waiting for its answer.
    mutating func launch(_ chunk: Chunk, into sink: AsyncStream<ChunkOutcome>.Continuation) async {
        nextID += 1
        let target = engine.target
        let client = target.client
        let task: Task<Void, Never>
        do {
            let request = try target.request(
                offset: chunk.offset, data: data[chunk.offset..<(chunk.offset + chunk.length)], totalLength: total, isFirst: chunk.isFirst
            )
            let sent = try await client.send(
                .write, group: request.group, command: request.command, payload: CBORWriter().encode(request.payload),
                timeout: configuration.chunkTimeout, retries: configuration.chunkRetries
            )
            task = Task {
                do {
                    let packet = try await client.response(to: sent)
                    let response: CBORValue
                    do {
                        response = try packet.decodedPayload()
                    } catch {
                        throw SMPError.invalidResponse("upload answer: \(error)")
                    }
                    sink.yield(ChunkOutcome(chunk: chunk, result: .success(try target.acknowledgement(from: response))))
                } catch {
                    sink.yield(ChunkOutcome(chunk: chunk, result: .failure(error)))
                }
            }
        } catch {
            task = Task {}
            sink.yield(ChunkOutcome(chunk: chunk, result: .failure(error)))
        }
        inFlight[chunk.id] = (chunk, task)
    }

    /// Abandons chunks in flight and continues from `offset`.
    mutating func restart(from offset: Int) {
        epoch += 1
        for (id, entry) in inFlight where entry.chunk.epoch < epoch {
            entry.task.cancel()
            inFlight[id] = nil
        }
        next = offset
    }

    // MARK: Answers

    mutating func handle(_ outcome: ChunkOutcome) async throws {
        let chunk = outcome.chunk
        switch outcome.result {
        case .success(let ack):
            try accept(ack, for: chunk)
        case .failure(let error):
            try await recover(from: error, chunk: chunk)
        }
    }

    mutating func accept(_ ack: UploadAcknowledgement, for chunk: Chunk) throws {
        let offset = ack.nextOffset
        guard offset >= 0, offset <= total else {
            throw UploadError.failed("the device reported offset \(offset), outside the \(total)-byte upload")
        }
        if chunk.isFirst {
            guard offset > 0 else {
                // The device took nothing from a first chunk: ask again, but not forever.
                try countFailure(.invalidResponse("the device answered the first chunk with offset 0"))
                return
            }
            needsFirstChunk = false
            if offset != chunk.length {
                logger.info("device resumes the upload at offset \(offset)")
            }
            advance(to: offset, resetting: true)
            restart(from: offset)
            if offset == total { finalMatch = ack.match }
            return
        }
        if offset == 0 && acknowledged > 0 {
            // The device lost the upload (e.g. it rebooted): ask it again with a first chunk.
            logger.info("device lost the upload at \(acknowledged) bytes; asking it where it stands")
            needsFirstChunk = true
            advance(to: 0, resetting: true)
            restart(from: 0)
            return
        }
        if offset < chunk.offset + chunk.length && chunk.epoch == epoch {
            // The device expects `offset`, before this chunk's end: something before it was lost.
            logger.debug("device expects offset \(offset), not \(chunk.offset + chunk.length): resending from there")
            advance(to: offset, resetting: true)
            restart(from: offset)
            return
        }
        // This chunk got through, or a late answer says how far the device is: take any progress.
        advance(to: offset, resetting: false)
        if next < offset { restart(from: offset) }
        if offset == total, ack.match != nil { finalMatch = ack.match }
    }

    mutating func advance(to offset: Int, resetting: Bool) {
        guard offset != acknowledged else { return }
        if offset > acknowledged { failures = 0 }
        if offset > acknowledged || resetting {
            acknowledged = offset
            progress(meter.record(offset))
        }
    }

    mutating func recover(from error: any Error, chunk: Chunk) async throws {
        if error is CancellationError {
            try Task.checkCancellation()
            return
        }
        guard let smpError = error as? SMPError else { throw error }
        switch smpError {
        case .timeout, .invalidResponse:
            if chunk.epoch < epoch || acknowledged >= chunk.offset + chunk.length { return }
            try countFailure(smpError)
            logger.debug("chunk at \(chunk.offset) timed out; resending from \(acknowledged)")
            if chunk.isFirst { return }
            restart(from: acknowledged)
        case .device(.status(let code, _)) where code == .noMemory || code == .busy:
            try countFailure(smpError)
            if window > 1 {
                window = max(1, min(window - 1, inFlight.count))
                logger.info("device has no room (\(code.name)); pipeline narrowed to \(window)")
            }
            try await backOff()
            if chunk.isFirst { return }
            if chunk.epoch == epoch { restart(from: acknowledged) }
        case .transport(let transportError):
            try countFailure(smpError)
            logger.info("link lost during upload (\(transportError)); waiting for it to come back")
            for entry in inFlight.values { entry.task.cancel() }
            inFlight.removeAll()
            try await reconnect()
            if engine.target.resumesFromFirstChunk {
                needsFirstChunk = true
            }
            restart(from: acknowledged)
        case .device(let deviceError):
            if chunk.epoch < epoch && !chunk.isFirst { return }
            throw UploadError.device(deviceError)
        default:
            throw UploadError.smp(smpError)
        }
    }

    mutating func countFailure(_ error: SMPError) throws {
        failures += 1
        if failures > configuration.maximumFailuresWithoutProgress {
            throw UploadError.stalled(offset: acknowledged, lastError: error)
        }
    }

    func backOff() async throws {
        let steps = min(failures, 6)
        try await Task.sleep(for: .milliseconds(25 << steps))
    }

    func reconnect() async throws {
        let deadline = ContinuousClock.now + configuration.reconnectTimeout
        var delay = Duration.milliseconds(50)
        while true {
            do {
                try await engine.target.client.transport.connect()
                return
            } catch {
                guard ContinuousClock.now + delay < deadline else {
                    throw UploadError.smp(.transport(error))
                }
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(1))
            }
        }
    }
}
