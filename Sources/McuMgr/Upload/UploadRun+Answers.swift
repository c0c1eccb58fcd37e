import SMP

extension UploadRun {
    nonisolated(nonsending) mutating func handle(_ outcome: UploadChunkOutcome) async throws(UploadError) {
        switch outcome.result {
        case .success(let ack):
            try accept(ack, for: outcome.chunk)
        case .failure(let error):
            try await recover(from: error, chunk: outcome.chunk)
        }
    }

    mutating func accept(_ ack: UploadAcknowledgement, for chunk: UploadChunk) throws(UploadError) {
        let offset = ack.nextOffset
        guard offset >= 0, offset <= total else {
            throw .smp(.invalidResponse("the device reported offset \(offset), outside the \(total)-byte upload"))
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
            record(offset)
            restart(from: offset)
            if offset == total { finalMatch = ack.match }
            return
        }
        if offset == 0 && acknowledged > 0 {
            // The device lost the upload (it rebooted, or erased the slot): ask where it stands, a few times at most.
            restarts += 1
            guard restarts <= configuration.maximumRestarts else {
                throw .stalled(offset: highWater, lastError: .invalidResponse("the device lost the upload \(restarts) times"))
            }
            logger.info("device lost the upload at \(acknowledged) bytes; asking it where it stands")
            highWater = 0
            needsFirstChunk = engine.target.resumesFromFirstChunk
            record(0)
            restart(from: 0)
            return
        }
        if offset < chunk.offset + chunk.length && chunk.epoch == epoch {
            // The device expects `offset`, before this chunk's end: something before it was lost.
            logger.debug("device expects offset \(offset), not \(chunk.offset + chunk.length): resending from there")
            if offset <= highWater {
                try countFailure(.invalidResponse("the device stays at offset \(offset)"))
            }
            record(offset)
            restart(from: offset)
            return
        }
        // This chunk got through, or a late answer says how far the device is: take any progress.
        if offset > acknowledged { record(offset) }
        if next < offset { restart(from: offset) }
        if offset == total, ack.match != nil { finalMatch = ack.match }
    }

    /// Takes the device's offset as where it stands; passing the furthest offset resets the failure count.
    mutating func record(_ offset: Int) {
        if offset > highWater {
            highWater = offset
            failures = 0
        }
        guard offset != acknowledged else { return }
        acknowledged = offset
        unreported.append(meter.record(offset))
    }

    /// Hands the progress recorded since the last call to the caller's closure, in order (after
    /// the next chunks are on their way, so a progress display never delays them).
    mutating func reportProgress() {
        guard !unreported.isEmpty else { return }
        for event in unreported { progress(event) }
        unreported.removeAll(keepingCapacity: true)
    }

    nonisolated(nonsending) mutating func recover(from error: SMPError, chunk: UploadChunk) async throws(UploadError) {
        switch error {
        case .cancelled:
            if Task.isCancelled { throw .cancelled }
        case .timeout:
            if chunk.epoch < epoch || acknowledged >= chunk.offset + chunk.length { return }
            try countFailure(error)
            logger.debug("chunk at \(chunk.offset) timed out; resending from \(acknowledged)")
            if chunk.isFirst { return }
            restart(from: acknowledged)
        case .device(.status(let code, _)) where code == .noMemory || code == .busy:
            try countFailure(error)
            // The session narrowed its window when the refusal arrived. Requests still in the
            // device free its buffers as they are answered; with none, wait.
            if code == .busy || !unanswered.values.contains(where: { $0.request != nil }) {
                try await backOff()
            }
            if chunk.isFirst { return }
            if chunk.epoch == epoch { restart(from: chunk.offset) }
        case .transport(let transportError):
            try countFailure(error)
            logger.info("link lost during upload (\(transportError)); waiting for it to come back")
            restart(from: acknowledged)
            do {
                try await client.reconnect()
            } catch {
                throw .smp(error)
            }
            try await readChunkSizes()
            if engine.target.resumesFromFirstChunk { needsFirstChunk = true }
        case .requestTooLarge:
            // The link came back with a smaller packet size than the chunks were cut for.
            let before = sizes
            try await readChunkSizes()
            guard sizes != before else { throw .smp(error) }
            restart(from: acknowledged)
        case .device:
            if chunk.epoch < epoch && !chunk.isFirst { return }
            throw .smp(error)
        default:
            throw .smp(error)
        }
    }

    mutating func countFailure(_ error: SMPError) throws(UploadError) {
        failures += 1
        if failures > configuration.maximumFailuresWithoutProgress {
            throw .stalled(offset: highWater, lastError: error)
        }
    }

    nonisolated(nonsending) func backOff() async throws(UploadError) {
        let steps = min(failures, 6)
        do {
            try await client.clock.sleep(for: .milliseconds(25 << steps))
        } catch {
            throw .cancelled
        }
    }
}
