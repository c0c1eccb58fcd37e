import SMP

extension FileSystemManager {
    /// Uploads a whole file to `name` through the shared upload engine; returns when the device holds all of it.
    ///
    /// Chunks fill the session's packet limit (the transport's, and the device's `buf_size` once known);
    /// `pipelineDepth` chunks may be in flight. A device that loses its place answers with the
    /// offset it expects and the upload continues from there.
    public func upload(
        name: String, data: [UInt8], pipelineDepth: Int = 1, control: UploadControl = UploadControl(),
        progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }
    ) async throws(UploadError) {
        let packetSize = await client.packetLimit()
        let engine = UploadEngine(
            target: FileUploadTarget(client: client, name: name),
            configuration: UploadConfiguration(pipelineDepth: pipelineDepth, packetSize: packetSize),
            control: control
        )
        // The packet limit is the transport's, and the device's `buf_size` once the session knows it
        // (`UploadConfiguration.negotiated(with:)` asks for it).
        _ = try await engine.upload(data, progress: progress)
    }
}
