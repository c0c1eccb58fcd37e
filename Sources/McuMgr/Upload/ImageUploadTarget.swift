import CBOR
import SMP

/// Image upload (group 1, command 1): chunks carry `off` and `data`; the first also `len`, `sha`
/// (SHA-256 of the whole file, which lets the device resume an upload it already has part of),
/// `image` and `upgrade`.
public struct ImageUploadTarget: UploadTarget {
    /// The session.
    public let client: SMPClient
    /// The image number to upload to (0 for the application core).
    public let image: Int
    /// SHA-256 of the whole file.
    public let sha: [UInt8]
    /// Ask the device to refuse an image that is not newer than the running one.
    public let upgrade: Bool
    /// The device resumes by `sha`.
    public var resumesFromFirstChunk: Bool { true }

    /// Makes a target.
    public init(client: SMPClient, image: Int, sha: [UInt8], upgrade: Bool = false) {
        self.client = client
        self.image = image
        self.sha = sha
        self.upgrade = upgrade
    }

    /// The first chunk carries `len`, `sha`, `image` and `upgrade`; the others only `off` and `data`.
    public func request(offset: Int, data: ArraySlice<UInt8>, totalLength: Int, isFirst: Bool) throws -> UploadChunkRequest {
        let chunk = isFirst
            ? ImageUploadRequest(offset: offset, data: Array(data), length: totalLength, sha: sha, image: image, upgrade: upgrade)
            : ImageUploadRequest(offset: offset, data: Array(data))
        return UploadChunkRequest(chunk)
    }

    /// The answer's `off`, and `match` on the last chunk.
    public func acknowledgement(from response: CBORValue) throws(SMPError) -> UploadAcknowledgement {
        try UploadAcknowledgement(response: response, upload: "image upload")
    }
}
