import McuMgr
import SMP

/// An upload as `mcumgr image upload` and `fs upload` run it: the packet size and pipeline depth
/// come from the device's MCUmgr parameters unless given, and the shared upload engine does the rest.
public enum NegotiatedUpload {
    /// Uploads `data` through `target`; `pipelineDepth` `nil` takes the device's `buf_count − 1`.
    @discardableResult
    public static func run(
        _ data: [UInt8], to target: some UploadTarget, pipelineDepth: Int? = nil, byteAlignment: Int = 1,
        chunkTimeout: Duration = .seconds(2), progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }
    ) async throws -> UploadAcknowledgement {
        let configuration = try await UploadConfiguration.negotiated(
            with: target.client, pipelineDepth: pipelineDepth, byteAlignment: byteAlignment, chunkTimeout: chunkTimeout)
        return try await UploadEngine(target: target, configuration: configuration).upload(data, progress: progress)
    }
}
