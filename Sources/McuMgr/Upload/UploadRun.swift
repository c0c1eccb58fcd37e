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

/// What the engine's task does for an upload that the session cannot: waiting and recovering.
enum UploadStep: Sendable {
    /// The upload ended.
    case finished(Result<UploadAcknowledgement, UploadError>)
    /// Paused with nothing in flight: wait until resumed.
    case paused
    /// The link was lost: bring it back, read the packet size again, and ask where the device stands.
    case reconnect
    /// A chunk no longer fits the packet size (the link came back smaller): cut chunks again.
    case resizeChunks(SMPError)
}

/// One upload in progress (see ``UploadEngine``): the chunks' bookkeeping — offsets, epochs,
/// failures, resume — as a pipeline of the session (``SMPPipeline``). The session asks it for the
/// next chunk whenever its window has room and hands it each answer, on the session's executor,
/// where the run lives; what needs waiting (a pause, a reconnect) goes to the engine's task as an
/// ``UploadStep``, and the run sends nothing until that task resumes it.
final class UploadRun: SMPPipeline {
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
    /// Every chunk sent and not yet answered, by id (its tag in the session). The answers of those
    /// of the current ``epoch`` count; older ones were abandoned by a restart.
    var unanswered: [Int: UploadChunk] = [:]
    var finalMatch: Bool?
    /// The next chunk's request, encoded while the chunks before it were on their way (off the
    /// round trip's critical path); used when the chunk sent next is this one.
    var prepared: PreparedChunk?
    /// Progress recorded and not yet handed to ``progress`` (see ``reportProgress()``).
    var unreported: [UploadProgress] = []
    /// What the engine's task must do next; the run sends nothing while one is outstanding.
    let steps = SingleConsumerQueue<UploadStep>()
    var awaitsEngine = false
    var ended = false

    var total: Int { data.count }
    var client: SMPClient { engine.target.client }
    var configuration: UploadConfiguration { engine.configuration }
    var logger: Logger { engine.logger }
    /// How many chunks whose answers count are on their way.
    var inFlight: Int { unanswered.values.reduce(0) { $0 + ($1.epoch == epoch ? 1 : 0) } }

    init(engine: UploadEngine, data: [UInt8], meter: UploadProgressMeter, progress: @escaping @Sendable (UploadProgress) -> Void) {
        self.engine = engine
        self.data = data
        self.meter = meter
        self.progress = progress
    }

    /// Runs the upload to its end on `session`, the session of ``client``, whose executor the
    /// run lives on: the session sends the chunks and hands back their answers; this task only
    /// waits, pauses and recovers. Whatever ends the upload, its chunks still in flight are
    /// cancelled in the session.
    func execute(on session: isolated SMPClient) async throws(UploadError) -> UploadAcknowledgement {
        try await readChunkSizes()
        defer {
            session.detach(self)
            reportProgress()
        }
        do {
            try await session.attach(self)
        } catch {
            throw .smp(error)
        }
        while true {
            guard let step = await steps.next() else { throw .cancelled }
            switch step {
            case .finished(let result):
                return try result.get()
            case .paused:
                reportProgress()
                await engine.control.waitWhilePaused()
                if Task.isCancelled { throw .cancelled }
            case .reconnect:
                do {
                    try await session.reconnect()
                } catch {
                    throw .smp(error)
                }
                try await readChunkSizes()
                if engine.target.resumesFromFirstChunk { needsFirstChunk = true }
            case .resizeChunks(let error):
                let before = sizes
                try await readChunkSizes()
                guard sizes != before else { throw .smp(error) }
                restart(from: acknowledged)
            }
            awaitsEngine = false
            await session.resume(self)
        }
    }

    /// Reads the session's packet size (again, after the link came back) and sizes chunks to it.
    nonisolated(nonsending) func readChunkSizes() async throws(UploadError) {
        let packetSize = await client.packetLimit()
        sizes = try engine.chunkSizes(totalLength: total, packetSize: packetSize)
        logger.debug("chunks of up to \(sizes.later) bytes in packets of \(packetSize)")
    }

    // MARK: The session's side

    /// The next chunk's request: the first chunk alone, then chunks from ``next`` on; after
    /// everything was sent and answered with the device still short, again from where it stands.
    func nextRequest() -> SMPPipelineRequest? {
        guard !ended, !awaitsEngine else { return nil }
        if engine.control.isPaused {
            if inFlight == 0 { waitForEngine(.paused) }
            return nil
        }
        if needsFirstChunk {
            guard inFlight == 0 else { return nil }
            return request(for: UploadChunk(id: nextID, offset: 0, length: min(sizes.first, total), epoch: epoch, isFirst: true))
        }
        if unanswered.values.contains(where: { $0.isFirst && $0.epoch == epoch }) { return nil }
        if next >= total {
            // Everything was sent but the device holds less: send again from where it stands.
            guard inFlight == 0, acknowledged < total else { return nil }
            restart(from: acknowledged)
        }
        let length = chunkLength(at: next)
        guard let request = request(for: UploadChunk(id: nextID, offset: next, length: length, epoch: epoch, isFirst: false)) else {
            return nil
        }
        next += length
        return request
    }

    /// A chunk's answer or failure: moves the upload on, or ends it.
    func complete(_ tag: Int, with result: Result<SMPPacket, SMPError>) {
        guard let chunk = unanswered.removeValue(forKey: tag), !ended, chunk.epoch == epoch else { return }
        do throws(UploadError) {
            switch acknowledgement(from: result) {
            case .success(let ack):
                try accept(ack, for: chunk)
            case .failure(let error):
                try recover(from: error, chunk: chunk)
            }
            if acknowledged >= total && !needsFirstChunk {
                end(finalMatch == false ? .failure(.verificationFailed) : .success(UploadAcknowledgement(nextOffset: acknowledged, match: finalMatch)))
            }
        } catch {
            end(.failure(error))
        }
    }

    /// After the session sent the chunks this run offered: progress goes to the caller, and the
    /// chunk that goes next is encoded while those are on their way.
    func didSend() {
        reportProgress()
        guard !ended, !needsFirstChunk, next < total, prepared?.offset != next else { return }
        prepared = try? encoded(offset: next, length: chunkLength(at: next), isFirst: false)
    }

    // MARK: Chunks

    /// The length of a later chunk starting at `offset`: chunk ends stay on the alignment even
    /// after resuming from an unaligned device offset.
    func chunkLength(at offset: Int) -> Int {
        let room = sizes.later - offset % configuration.byteAlignment
        return min(room > 0 ? room : sizes.later, total - offset)
    }

    /// The session's request for `chunk`, now in flight; `nil` (and the upload ends) when it
    /// cannot be encoded.
    func request(for chunk: UploadChunk) -> SMPPipelineRequest? {
        let encoded: PreparedChunk
        do {
            encoded = try self.encoded(offset: chunk.offset, length: chunk.length, isFirst: chunk.isFirst)
        } catch {
            end(.failure(.invalidConfiguration("the chunk request cannot be encoded: \(error)")))
            return nil
        }
        prepared = nil
        nextID += 1
        unanswered[chunk.id] = chunk
        let request = encoded.request
        return SMPPipelineRequest(
            request.operation, group: request.group, command: request.command, payload: encoded.payload,
            retryPolicy: request.retryPolicy, options: chunkOptions, tag: chunk.id
        )
    }

    /// The encoded request of one chunk: the prepared one when it is that chunk, else encoded now.
    func encoded(offset: Int, length: Int, isFirst: Bool) throws -> PreparedChunk {
        if let prepared, prepared.offset == offset, prepared.length == length, prepared.isFirst == isFirst { return prepared }
        let request = try engine.target.request(
            offset: offset, data: data[offset..<(offset + length)], totalLength: total, isFirst: isFirst
        )
        return PreparedChunk(offset: offset, length: length, isFirst: isFirst, request: request, payload: CBORWriter().encode(request.payload))
    }

    /// The session options of every chunk request.
    var chunkOptions: SMPRequestOptions {
        SMPRequestOptions(timeout: configuration.chunkTimeout, retries: configuration.chunkRetries)
    }

    /// Reads a chunk's answer as an acknowledgement (a device error in it is a failure).
    func acknowledgement(from result: Result<SMPPacket, SMPError>) -> Result<UploadAcknowledgement, SMPError> {
        result.flatMap { packet in
            Result { () throws(SMPError) -> UploadAcknowledgement in
                let response: CBORValue
                do {
                    response = try packet.decodedPayload()
                } catch {
                    throw .invalidResponse("upload answer: \(error)")
                }
                return try engine.target.acknowledgement(from: response)
            }
        }
    }

    // MARK: Handing over to the engine's task

    /// Stops sending until the engine's task has done `step` and resumed the run.
    func waitForEngine(_ step: UploadStep) {
        awaitsEngine = true
        steps.yield(step)
    }

    /// Ends the upload with `result`: nothing more is sent, later answers are ignored.
    func end(_ result: Result<UploadAcknowledgement, UploadError>) {
        guard !ended else { return }
        ended = true
        steps.yield(.finished(result))
    }

    /// Abandons the chunks in flight (their answers no longer count) and continues from `offset`.
    func restart(from offset: Int) {
        epoch += 1
        next = offset
    }
}
