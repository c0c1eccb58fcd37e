import CBOR

/// One file upload chunk (group 8, command 0, write): `{"name", "off", "data", "len" (at offset 0)}`.
public struct FileUploadRequest: Codable, CBORValueRepresentable, Sendable, Equatable {
    /// The file's absolute path on the device.
    public var name: String
    /// Where this chunk goes; must be where the device stands (0 starts over and truncates).
    public var offset: Int
    /// The chunk's bytes.
    public var data: [UInt8]
    /// The file's total size, required at offset 0; `nil` leaves the key out.
    public var length: Int?

    /// Makes a chunk.
    public init(name: String, offset: Int, data: [UInt8], length: Int? = nil) {
        self.name = name
        self.offset = offset
        self.data = data
        self.length = length
    }

    /// Reads a chunk.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        offset = try c.decode(Int.self, forKey: .offset)
        data = try c.decodeByteString(forKey: .data)
        length = try c.decodeIfPresent(Int.self, forKey: .length)
    }

    /// Writes the chunk (``cborValue``).
    public func encode(to encoder: any Encoder) throws {
        try cborValue.encode(to: encoder)
    }

    /// The chunk as a CBOR map with its data as a byte string (built directly: one per chunk).
    public var cborValue: CBORValue {
        .textMap(omittingNil: ["name": .text(name), "off": .int(offset), "data": .bytes(data), "len": length.map(CBORValue.int)])
    }

    private enum CodingKeys: String, CodingKey { case name, offset = "off", data, length = "len" }
}

/// The device's answer to a file upload chunk: `{"off": uint}`, the bytes written so far.
public struct FileUploadResponse: Codable, Sendable, Equatable {
    /// The offset the device expects next.
    public var offset: Int

    /// Makes a response.
    public init(offset: Int) { self.offset = offset }

    private enum CodingKeys: String, CodingKey { case offset = "off" }
}
