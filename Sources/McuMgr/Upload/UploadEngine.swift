import CBOR
import Logging
import SMP

/// The one upload loop behind image and file uploads.
///
/// It sends the first chunk alone (so the device can answer where a previous upload of the same
/// file stands), then keeps the session's window of chunks in flight (the pipeline depth, or
/// fewer while the device is short of buffers: the session narrows and widens it, and holds the
/// chunks back while the device is busy). The upload is a pipeline of the session
/// (`SMPPipeline`): each chunk leaves inside the handling of the answer that made room for it. The device's
/// `off` is the truth: when it reports another offset than expected (a lost or reordered chunk),
/// chunks in flight past it are abandoned and sending resumes from the device's offset; late and
/// duplicate answers are ignored. Any sequence of answers ends in bounded time: answers that do
/// not move the device past the furthest offset it reported count as failures, and too many in a
/// row fail the upload as stalled, naming the offset. A dropped link is brought back by the
/// session, chunk sizes are read again (the link may return with another MTU), and the device is
/// asked where it stands instead of starting over.
public struct UploadEngine: Sendable {
    /// Where the chunks go.
    public let target: any UploadTarget
    /// Pacing and sizing.
    public let configuration: UploadConfiguration
    /// Pause and resume.
    public let control: UploadControl
    let logger: Logger

    /// Makes an engine; `configuration` is checked when `upload` starts.
    public init(
        target: any UploadTarget, configuration: UploadConfiguration = UploadConfiguration(), control: UploadControl = UploadControl(),
        logger: Logger = Logger(label: "mcumgr.upload")
    ) {
        self.target = target
        self.configuration = configuration
        self.control = control
        self.logger = logger
    }

    /// Uploads `data` and returns the final acknowledgement; `progress` sees every new acknowledged offset.
    ///
    /// Reads the device's buffers first when the session has not (one negotiation per session;
    /// skipped when the configuration fixes the depth and says not to read them), and runs the
    /// session's window at the pipeline depth for the upload's duration.
    public func upload(
        _ data: [UInt8], progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }
    ) async throws(UploadError) -> UploadAcknowledgement {
        try configuration.validate()
        guard !data.isEmpty else { throw .invalidConfiguration("nothing to upload: the data is empty") }
        let client = target.client
        let buffers: SMPDeviceBuffers?
        do {
            if configuration.readsDeviceBuffers || configuration.pipelineDepth == nil {
                buffers = try await client.negotiateIfNeeded()
            } else {
                buffers = await client.deviceBuffers
            }
        } catch {
            throw .smp(error)
        }
        let previousWindow = await client.configuration.maximumInFlight
        await client.setMaximumInFlight(configuration.depth(for: buffers))
        let result: Result<UploadAcknowledgement, UploadError>
        do throws(UploadError) {
            result = .success(try await run(data, progress: progress, on: client))
        } catch {
            result = .failure(error)
        }
        await client.setMaximumInFlight(previousWindow)
        return try result.get()
    }

    /// Makes the upload's run where it lives, on `session`'s executor, and runs it there.
    private func run(
        _ data: [UInt8], progress: @escaping @Sendable (UploadProgress) -> Void, on session: isolated SMPClient
    ) async throws(UploadError) -> UploadAcknowledgement {
        let run = UploadRun(engine: self, data: data, meter: UploadProgressMeter(total: data.count, clock: session.clock), progress: progress)
        return try await run.execute(on: session)
    }

    /// The largest first and later chunk data lengths for requests of at most `packetSize` bytes,
    /// rounded down to the alignment; exact, from the encoded request with empty data.
    public func chunkSizes(totalLength: Int, packetSize: Int) throws(UploadError) -> (first: Int, later: Int) {
        func largest(isFirst: Bool) throws(UploadError) -> Int {
            let empty: Int
            do {
                empty = try target.packetSize(offset: totalLength, dataLength: 0, totalLength: totalLength, isFirst: isFirst)
            } catch {
                throw .invalidConfiguration("the chunk request cannot be encoded: \(error)")
            }
            // packet(n) = empty − head(0) + head(n) + n, with head(0) = 1 byte.
            var length = packetSize - empty
            while length > 0, empty - 1 + cborByteStringHeadLength(length) + length > packetSize {
                length -= 1
            }
            return length - length % configuration.byteAlignment
        }
        let first = try largest(isFirst: true)
        let later = try largest(isFirst: false)
        guard first >= min(32, totalLength), later > 0 else {
            throw .invalidConfiguration("packets of \(packetSize) bytes leave no room for chunk data")
        }
        return (first, later)
    }
}
