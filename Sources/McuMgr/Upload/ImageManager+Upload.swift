import Crypto
import SMP

extension ImageManager {
    /// Uploads a whole image file to image number `image` (its secondary slot) through the shared
    /// upload engine, as `FileSystemManager.upload` does for files; returns the final acknowledgement.
    ///
    /// The first chunk carries the file's SHA-256 (`sha`), so a device that holds part of the same
    /// file resumes where it stopped. With `upgrade`, the device refuses an image that is not
    /// newer than the one running.
    @discardableResult
    public func upload(
        image: Int = 0, data: [UInt8], upgrade: Bool = false, configuration: UploadConfiguration = UploadConfiguration(),
        control: UploadControl = UploadControl(), progress: @escaping @Sendable (UploadProgress) -> Void = { _ in }
    ) async throws(UploadError) -> UploadAcknowledgement {
        let sha = Array(SHA256.hash(data: data))
        let target = ImageUploadTarget(client: client, image: image, sha: sha, upgrade: upgrade)
        return try await UploadEngine(target: target, configuration: configuration, control: control).upload(data, progress: progress)
    }
}
