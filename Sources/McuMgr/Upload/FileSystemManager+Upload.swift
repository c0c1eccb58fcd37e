import SMP

extension FileSystemManager {
    /// Uploads a whole file to `name` through the shared upload engine; returns when the device holds all of it.
    ///
    /// Chunks fill the largest request the device takes (its `buf_size`, asked for first, and the
    /// transport's limit); `pipelineDepth` chunks (by default the device's `buf_count − 1`) may be in
    /// flight. A device that loses its place answers with the offset it expects, and the upload
    /// continues from there.
    public func upload(
        name: String, data: [UInt8], pipelineDepth: Int? = nil, control: UploadControl = UploadControl(),
        progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }
    ) async throws(UploadError) {
        let configuration: UploadConfiguration
        do {
            configuration = try await UploadConfiguration.negotiated(with: client, pipelineDepth: pipelineDepth)
        } catch let error as SMPError {
            throw .smp(error)
        } catch {
            throw .failed("\(error)")
        }
        let engine = UploadEngine(target: FileUploadTarget(client: client, name: name), configuration: configuration, control: control)
        _ = try await engine.upload(data, progress: progress)
    }
}
