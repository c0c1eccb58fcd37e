import SMP

/// The image group, 1: the slot table, test and confirm, upload chunks, erase and slot info.
///
/// Device errors arrive as `SMPError.device(...)`: image-group errors (SMP v2) as
/// `.image(ImageGroupError)`, e.g. `IMG_MGMT_ERR_HASH_NOT_FOUND`; SMP v1 devices translate them
/// into an SMP status (`.status`).
public struct ImageManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient

    /// Makes a manager over `client`.
    public init(client: SMPClient) { self.client = client }

    /// Reads the slot table: every slot holding a valid image.
    ///
    /// `options` override the session's timing for this request (e.g. to poll a rebooting device).
    public func list(options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) -> [ImageSlot] {
        try await client.send(ImageStateRead(), options: options).images
    }

    /// Marks the image with `hash` (its SHA-256 TLV) to run once at the next boot; returns the new table.
    public func test(hash: [UInt8], options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) -> [ImageSlot] {
        try await client.send(ImageStateWriteRequest(hash: hash, confirm: false), options: options).images
    }

    /// Confirms the running image (`hash == nil`), or makes the image with `hash` permanent; returns the new table.
    public func confirm(hash: [UInt8]? = nil, options: SMPRequestOptions = SMPRequestOptions()) async throws(SMPError) -> [ImageSlot] {
        try await client.send(ImageStateWriteRequest(hash: hash, confirm: true), options: options).images
    }

    /// Erases `slot` (`nil`: the device's default, the running image's other slot). Never resent:
    /// after a timeout, read the slot table to learn whether it happened.
    public func erase(slot: Int? = nil) async throws(SMPError) {
        _ = try await client.send(ImageEraseRequest(slot: slot))
    }

    /// Reads each image's slots and sizes (newer Zephyr; older devices answer `MGMT_ERR_ENOTSUP`).
    public func slotInfo() async throws(SMPError) -> [ImageSlotInfo] {
        try await client.send(ImageSlotInfoRead()).images
    }

    /// Sends one upload chunk and returns the device's answer; continue from its `offset`.
    ///
    /// `length` is required on the first chunk (`offset == 0`); `sha`, `image` and `upgrade`
    /// belong to it too. Keys left `nil` are not sent. For a whole image, use ``upload(image:data:upgrade:configuration:control:progress:)``.
    public func upload(
        offset: Int, data: [UInt8], length: Int? = nil, sha: [UInt8]? = nil, image: Int? = nil, upgrade: Bool? = nil
    ) async throws(SMPError) -> ImageUploadResponse {
        try await client.send(ImageUploadRequest(offset: offset, data: data, length: length, sha: sha, image: image, upgrade: upgrade))
    }
}
