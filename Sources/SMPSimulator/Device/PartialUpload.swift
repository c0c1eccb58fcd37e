/// The image upload in progress.
public struct PartialUpload: Sendable, Hashable {
    /// Target image.
    public let image: Int
    /// Bytes received so far.
    public let offset: Int
    /// Total length.
    public let size: Int
    /// The `sha` the upload started with.
    public let sha: [UInt8]
}
