import SMP

extension FileSystemManager {
    /// Uploads a whole file to `name` through the shared upload engine; returns when the device holds all of it.
    ///
    /// Chunks fill the largest request the session sends (the device's `buf_size` and the
    /// transport's limit); the pipeline depth defaults to the device's `buf_count − 1`. A device
    /// that loses its place answers with the offset it expects, and the upload continues from there.
    public func upload(
        name: String, data: [UInt8], configuration: UploadConfiguration = UploadConfiguration(), control: UploadControl = UploadControl(),
        progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }
    ) async throws(UploadError) {
        let engine = UploadEngine(target: FileUploadTarget(client: client, name: name), configuration: configuration, control: control)
        _ = try await engine.upload(data, progress: progress)
    }
}
