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

    /// Downloads the whole file `name`, asking from each new offset until the file's size (sent
    /// with the first chunk) is reached or a chunk comes back empty. `progress` gets
    /// (bytes so far, file size) after each chunk.
    ///
    /// Throws `SMPError.invalidResponse` when the device answers for another offset, sends more
    /// than the file's size, or stops short of it.
    public func download(name: String, progress: (@Sendable (Int, Int) -> Void)? = nil) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        var total: Int?
        while true {
            try Task.checkCancellation()
            let offset = bytes.count
            let chunk = try await client.request(
                .read, group: .fs, command: Command.file, body: FileDownloadRequest(name: name, offset: offset), as: FileDownloadResponse.self
            )
            if let answered = chunk.offset, answered != offset {
                throw SMPError.invalidResponse("fs download of \(name): asked for offset \(offset), the device answered for \(answered)")
            }
            if offset == 0 { total = chunk.length }
            if let total, offset + chunk.data.count > total {
                throw SMPError.invalidResponse("fs download of \(name): the device sent \(offset + chunk.data.count) bytes of a \(total)-byte file")
            }
            bytes += chunk.data
            if !chunk.data.isEmpty { progress?(bytes.count, total ?? bytes.count) }
            if let total, bytes.count == total {
                if total == 0 { progress?(0, 0) }
                return bytes
            }
            if chunk.data.isEmpty { break }
        }
        if let total {
            throw SMPError.invalidResponse("fs download of \(name): the device stopped at \(bytes.count) of \(total) bytes")
        }
        return bytes
    }

    /// Reads the size of the file `name` in bytes.
    public func status(name: String) async throws -> Int {
        try await client.request(.read, group: .fs, command: Command.status, body: FileStatusRequest(name: name), as: FileStatusResponse.self).length
    }

    /// Has the device hash or checksum the file `name`: `type` (`nil`: the device's default),
    /// from `offset` (default 0), `length` bytes (default: to the end).
    public func hash(name: String, type: String? = nil, offset: Int? = nil, length: Int? = nil) async throws -> FileHash {
        let request = FileHashRequest(name: name, type: type, offset: offset, length: length)
        return try await client.request(.read, group: .fs, command: Command.hash, body: request, as: FileHash.self)
    }

    /// Lists the hash and checksum types the device supports, by name.
    public func supportedHashes() async throws -> [String: HashTypeInfo] {
        try await client.request(.read, group: .fs, command: Command.supportedHashes, body: SMPEmptyMessage(), as: SupportedHashesResponse.self).types
    }

    /// Closes the file the device holds open for an upload or download.
    public func close() async throws {
        _ = try await client.request(.write, group: .fs, command: Command.close, body: SMPEmptyMessage(), as: SMPEmptyMessage.self)
    }

    /// Sends one upload chunk of the file `name` and returns the device's offset (bytes written so far).
    ///
    /// Offset 0 creates or truncates the file and needs `length`, the file's total size. A chunk
    /// at any other offset must continue exactly where the device stands, or it throws
    /// `SMPError.device(.fs(.fileOffsetNotValid))`.
    public func uploadChunk(name: String, offset: Int, data: [UInt8], length: Int? = nil) async throws -> Int {
        let chunk = FileUploadRequest(name: name, offset: offset, data: data, length: length)
        return try await client.request(.write, group: .fs, command: Command.file, body: chunk, as: FileUploadResponse.self).offset
    }

    private enum Command {
        static let file: UInt8 = 0
        static let status: UInt8 = 1
        static let hash: UInt8 = 2
        static let supportedHashes: UInt8 = 3
        static let close: UInt8 = 4
    }
}
