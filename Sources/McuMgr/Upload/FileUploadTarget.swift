import CBOR
import SMP

/// File upload (group 8, command 0): chunks carry `name`, `off` and `data`; the first also `len`.
///
/// A device that is elsewhere answers `FILE_OFFSET_NOT_VALID` with the offset it expects in `len`;
/// that becomes an acknowledgement of that offset, so the engine resumes from it.
public struct FileUploadTarget: UploadTarget {
    /// The session.
    public let client: SMPClient
    /// The file's path on the device.
    public let name: String
    /// A file upload is found again by offset, not by a first chunk.
    public var resumesFromFirstChunk: Bool { false }

    /// Makes a target.
    public init(client: SMPClient, name: String) {
        self.client = client
        self.name = name
    }

    /// The first chunk also carries `len`.
    public func request(offset: Int, data: ArraySlice<UInt8>, totalLength: Int, isFirst: Bool) throws -> UploadChunkRequest {
        let chunk = FileUploadRequest(name: name, offset: offset, data: Array(data), length: isFirst ? totalLength : nil)
        return UploadChunkRequest(chunk)
    }

    /// The answer's `off`; a device that is elsewhere names the offset it expects in `len`, next to the error.
    public func acknowledgement(from response: CBORValue) throws(SMPError) -> UploadAcknowledgement {
        if case .fs(.fileOffsetNotValid)? = try SMPDeviceError(response: response), let expected = response["len"]?.intValue {
            return UploadAcknowledgement(nextOffset: expected)
        }
        return try UploadAcknowledgement(response: response, upload: "file upload")
    }
}
