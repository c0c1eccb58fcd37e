import ArgumentParser
import McuMgr
import McuMgrTools

/// The chunking options of the commands that upload (`image upload`, `fs upload`, `upgrade`);
/// what they leave out comes from the device's MCUmgr parameters.
struct UploadOptions: ParsableArguments {
    @Option(name: .customLong("pipeline-depth"), help: "Chunks in flight at once (default: the device's buf_count − 1).")
    var pipelineDepth: Int?

    @Option(name: .customLong("alignment"), help: "Chunk sizes are multiples of this many bytes: 1, 2, 4, 8 or 16.")
    var alignment = 1

    func validate() throws {
        do {
            try UploadConfiguration(pipelineDepth: pipelineDepth, byteAlignment: alignment).validate()
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

extension GlobalOptions {
    /// How long the upload engine waits for each chunk's answer: --timeout (or the profile's), else 2 s.
    var chunkTimeout: Duration { session.chunkTimeout }

    /// Uploads `bytes` through `target` with the packet size and pipeline depth the device's
    /// parameters give (unless `options` name them), showing progress.
    func upload(_ bytes: [UInt8], to target: some UploadTarget, options: UploadOptions) async throws {
        // With the packet size given, the device's buffers only decide the depth: the engine reads
        // them (`mcumgr params`) when `--pipeline-depth` is not given either.
        let session = session
        let configuration = UploadConfiguration(
            pipelineDepth: options.pipelineDepth, byteAlignment: options.alignment, chunkTimeout: session.chunkTimeout,
            readsDeviceBuffers: session.mtu == nil)
        let display = ProgressDisplay(label: "upload", fd: output.progressDescriptor)
        defer { display.finish() }
        _ = try await UploadEngine(target: target, configuration: configuration).upload(bytes) { display.update($0) }
    }
}
