/// The image upload in progress, as the device keeps it (Zephyr's `g_img_mgmt_state`).
public struct PartialUpload: Sendable, Hashable {
    /// Target image.
    public internal(set) var image: Int
    /// The slot receiving the data: the secondary in swap modes, the slot not running in direct-XIP.
    public internal(set) var slot: Int
    /// Bytes accepted so far: the next offset expected.
    public internal(set) var offset: Int
    /// Total length announced by the first chunk.
    public internal(set) var size: Int
    /// The `sha` the upload started with (any length up to 32; empty when none was sent).
    public internal(set) var sha: [UInt8]
}
