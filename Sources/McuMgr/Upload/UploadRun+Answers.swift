import SMP

extension UploadRun {
    /// Takes the device's answer to `chunk`: where it stands decides what goes next.
    func accept(_ ack: UploadAcknowledgement, for chunk: UploadChunk) throws(UploadError) {
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
            // What the device held before this run counts in no rate nor in what was sent.
            meter.startsAt(offset != chunk.length ? offset : 0)
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
    func record(_ offset: Int) {
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
    func reportProgress() {
        guard !unreported.isEmpty else { return }
        for event in unreported { progress(event) }
        unreported.removeAll(keepingCapacity: true)
    }

    /// A chunk failed: count it against the stall limit and continue from where the device stands,
    /// or hand the engine's task what needs waiting (a reconnect, new chunk sizes).
    func recover(from error: SMPError, chunk: UploadChunk) throws(UploadError) {
        switch error {
        case .cancelled:
            return
        case .timeout:
            if acknowledged >= chunk.offset + chunk.length { return }
            try countFailure(error)
            logger.debug("chunk at \(chunk.offset) timed out; resending from \(acknowledged)")
            if chunk.isFirst { return }
            restart(from: acknowledged)
        case .device(let answer) where answer.isRefusalForLackOfRoom:
            // The session narrowed its window, and holds this run back while the device needs.
            try countFailure(error)
            if !chunk.isFirst { restart(from: chunk.offset) }
        case .transport(let transportError):
            try countFailure(error)
            logger.info("link lost during upload (\(transportError)); waiting for it to come back")
            restart(from: acknowledged)
            waitForEngine(.reconnect)
        case .requestTooLarge:
            // The link came back with a smaller packet size than the chunks were cut for.
            waitForEngine(.resizeChunks(error))
        default:
            throw .smp(error)
        }
    }

    func countFailure(_ error: SMPError) throws(UploadError) {
        failures += 1
        if failures > configuration.maximumFailuresWithoutProgress {
            throw .stalled(offset: highWater, lastError: error)
        }
    }
}
