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
    /// `timeout` and `retries` override the session's for this request (e.g. to poll a rebooting device).
    public func list(timeout: Duration? = nil, retries: Int? = nil) async throws -> [ImageSlot] {
        try await client.request(
            .read, group: .image, command: Command.state, body: SMPEmptyMessage(), as: ImageStateResponse.self,
            timeout: timeout, retries: retries
        ).images
    }

    /// Marks the image with `hash` (its SHA-256 TLV) to run once at the next boot; returns the new table.
    public func test(hash: [UInt8]) async throws -> [ImageSlot] {
        try await writeState(ImageStateWriteRequest(hash: hash, confirm: false))
    }

    /// Confirms the running image (`hash == nil`), or makes the image with `hash` permanent; returns the new table.
    public func confirm(hash: [UInt8]? = nil) async throws -> [ImageSlot] {
        try await writeState(ImageStateWriteRequest(hash: hash, confirm: true))
    }

    /// Erases `slot` (`nil`: the device's default, the running image's other slot).
    public func erase(slot: Int? = nil) async throws {
        _ = try await client.request(.write, group: .image, command: Command.erase, body: ImageEraseRequest(slot: slot), as: SMPEmptyMessage.self)
    }

    /// Reads each image's slots and sizes (newer Zephyr; older devices answer `MGMT_ERR_ENOTSUP`).
    public func slotInfo() async throws -> [ImageSlotInfo] {
        try await client.request(.read, group: .image, command: Command.slotInfo, body: SMPEmptyMessage(), as: ImageSlotInfoResponse.self).images
    }

    /// Sends one upload chunk and returns the device's answer; continue from its `offset`.
    ///
    /// `length` is required on the first chunk (`offset == 0`); `sha`, `image` and `upgrade`
    /// belong to it too. Keys left `nil` are not sent.
    public func upload(
        offset: Int, data: [UInt8], length: Int? = nil, sha: [UInt8]? = nil, image: Int? = nil, upgrade: Bool? = nil
    ) async throws -> ImageUploadResponse {
        let chunk = ImageUploadRequest(offset: offset, data: data, length: length, sha: sha, image: image, upgrade: upgrade)
        return try await client.request(.write, group: .image, command: Command.upload, body: chunk, as: ImageUploadResponse.self)
    }

    private func writeState(_ request: ImageStateWriteRequest) async throws -> [ImageSlot] {
        try await client.request(.write, group: .image, command: Command.state, body: request, as: ImageStateResponse.self).images
    }

    private enum Command {
        static let state: UInt8 = 0
        static let upload: UInt8 = 1
        static let erase: UInt8 = 5
        static let slotInfo: UInt8 = 6
    }
}
