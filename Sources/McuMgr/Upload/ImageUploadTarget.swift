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

    /// The request map for one chunk: the single place its keys are written.
    public static func request(
        offset: Int, data: ArraySlice<UInt8>, length: Int?, sha: [UInt8]?, image: Int?, upgrade: Bool?
    ) -> CBORValue {
        var entries: [(key: CBORValue, value: CBORValue)] = [
            (.text("off"), .unsigned(UInt64(offset))),
            (.text("data"), .bytes(Array(data))),
        ]
        if let length { entries.append((.text("len"), .unsigned(UInt64(length)))) }
        if let sha { entries.append((.text("sha"), .bytes(sha))) }
        if let image { entries.append((.text("image"), .unsigned(UInt64(image)))) }
        if let upgrade { entries.append((.text("upgrade"), .bool(upgrade))) }
        return .map(entries)
    }

    /// The first chunk carries `len`, `sha`, `image` and `upgrade`; the others only `off` and `data`.
    public func request(offset: Int, data: ArraySlice<UInt8>, totalLength: Int, isFirst: Bool) -> UploadChunkRequest {
        let payload = isFirst
            ? Self.request(offset: offset, data: data, length: totalLength, sha: sha, image: image, upgrade: upgrade)
            : Self.request(offset: offset, data: data, length: nil, sha: nil, image: nil, upgrade: nil)
        return UploadChunkRequest(group: .image, command: 1, payload: payload)
    }

    /// The answer's `off`, and `match` on the last chunk.
    public func acknowledgement(from response: CBORValue) throws -> UploadAcknowledgement {
        if let error = SMPDeviceError(response: response) { throw SMPError.device(error) }
        guard let next = response["off"]?.intValue else {
            throw SMPError.invalidResponse("image upload answer has no \"off\": \(response)")
        }
        return UploadAcknowledgement(nextOffset: next, match: response["match"]?.boolValue)
    }
}
