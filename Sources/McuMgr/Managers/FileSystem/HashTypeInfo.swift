/// One hash or checksum type the device supports (group 8, command 3).
public struct HashTypeInfo: Codable, Sendable, Equatable {
    /// 0: the output is an integer; 1: the output is a byte string.
    public var format: Int
    /// The output's size in bytes.
    public var size: Int

    /// Makes a record.
    public init(format: Int, size: Int) {
        self.format = format
        self.size = size
    }

    /// Whether the output is a byte string (a digest) rather than an integer (a checksum).
    public var isByteString: Bool { format == 1 }
}

/// Supported hash types response: `{"types": {name: {"format", "size"}}}`.
public struct SupportedHashesResponse: Codable, Sendable, Equatable {
    /// The types by name (`"crc32"`, `"sha256"`, …).
    public var types: [String: HashTypeInfo]

    /// Makes a response.
    public init(types: [String: HashTypeInfo]) { self.types = types }

    /// Reads the response; `types` is required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        types = try c.decode([String: HashTypeInfo].self, forKey: .types)
    }

    private enum CodingKeys: String, CodingKey { case types }
}
