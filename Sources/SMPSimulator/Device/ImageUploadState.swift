/// The image upload in progress (Zephyr's `g_img_mgmt_state`).
struct ImageUploadState: Sendable, Hashable {
    /// The image being written (its secondary slot is the target).
    var image: Int
    /// Bytes accepted so far: the next offset expected.
    var offset: Int
    /// Total length announced by the first chunk.
    var size: Int
    /// The `sha` of the first chunk (any length up to 32; empty when none was sent).
    var sha: [UInt8]
}
