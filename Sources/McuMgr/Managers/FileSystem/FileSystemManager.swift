import SMP

/// The file-system group, 8: download files, read a file's size and hash, list the hash types,
/// close the device's open file, and send upload chunks.
///
/// Errors arrive as `SMPError.device(.fs(...))`, e.g. `FS_MGMT_ERR_FILE_NOT_FOUND`.
public struct FileSystemManager: Sendable {
    /// The session requests go through.
    public let client: SMPClient

    /// Makes a manager over `client`.
    public init(client: SMPClient) { self.client = client }

    /// Reads the size of the file `name` in bytes.
    public func status(name: String) async throws(SMPError) -> Int {
        try await client.send(FileStatusRequest(name: name)).length
    }

    /// Has the device hash or checksum the file `name`: `type` (`nil`: the device's default),
    /// from `offset` (default 0), `length` bytes (default: to the end).
    public func hash(name: String, type: String? = nil, offset: Int? = nil, length: Int? = nil) async throws(SMPError) -> FileHash {
        try await client.send(FileHashRequest(name: name, type: type, offset: offset, length: length))
    }

    /// Lists the hash and checksum types the device supports, by name.
    public func supportedHashes() async throws(SMPError) -> [String: HashTypeInfo] {
        try await client.send(SupportedHashesRead()).types
    }

    /// Closes the file the device holds open for an upload or download.
    public func close() async throws(SMPError) {
        _ = try await client.send(FileClose())
    }

    /// Sends one upload chunk of the file `name` and returns the device's offset (bytes written so far).
    ///
    /// Offset 0 creates or truncates the file and needs `length`, the file's total size. A chunk
    /// at any other offset must continue exactly where the device stands, or it throws
    /// `SMPError.device(.fs(.fileOffsetNotValid))`.
    public func uploadChunk(name: String, offset: Int, data: [UInt8], length: Int? = nil) async throws(SMPError) -> Int {
        try await client.send(FileUploadRequest(name: name, offset: offset, data: data, length: length)).offset
    }
}
