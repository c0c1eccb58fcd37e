/// File download request (group 8, command 0, read): `{"name": path, "off": uint}`.
public struct FileDownloadRequest: Codable, Sendable, Equatable {
    /// The file's absolute path on the device.
    public var name: String
    /// Where to read from.
    public var offset: Int

    /// Makes a request.
    public init(name: String, offset: Int) {
        self.name = name
        self.offset = offset
    }

    private enum CodingKeys: String, CodingKey { case name, offset = "off" }
}

/// One downloaded chunk: `{"off": uint, "data": bstr, "len": uint (only at offset 0)}`.
public struct FileDownloadResponse: Codable, Sendable, Equatable {
    /// The offset of `data` (the one requested).
    public var offset: Int
    /// The chunk's bytes (empty at the end of the file).
    public var data: [UInt8]
    /// The file's size, sent with the chunk at offset 0.
    public var length: Int?

    /// Makes a response.
    public init(offset: Int, data: [UInt8], length: Int? = nil) {
        self.offset = offset
        self.data = data
        self.length = length
    }

    /// Reads a chunk; absent `data` reads as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        offset = try c.decode(Int.self, forKey: .offset)
        data = try c.decodeByteString(forKey: .data)
        length = try c.decodeIfPresent(Int.self, forKey: .length)
    }

    /// Writes the chunk with its data as a byte string.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(offset, forKey: .offset)
        try c.encodeByteString(data, forKey: .data)
        try c.encodeIfPresent(length, forKey: .length)
    }

    private enum CodingKeys: String, CodingKey { case offset = "off", data, length = "len" }
}
